// The C side of decoding: one `struct cbor_callbacks` whose entries are non-capturing
// closures (so they convert to C function pointers). Each callback only translates what
// libcbor's `cbor_stream_decode` reports for ONE data-item header into a `StreamEvent`
// and leaves it in the `Mailbox` that the context pointer points to. All policy (limits,
// nesting, duplicate keys, minimal encodings) lives in `TreeBuilder`, in plain Swift.
//
// String payloads are copied out of libcbor's pointer into `[UInt8]` / `String` inside the
// callback, so no pointer into the input survives the callback.

internal import CLibCBOR

/// What a single `cbor_stream_decode` call reported.
enum StreamEvent {
    case nothing
    case unsigned(UInt64)
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case bytesStart
    case textStart
    case arrayStart(UInt64)
    case indefiniteArrayStart
    case mapStart(UInt64)
    case indefiniteMapStart
    case tag(UInt64)
    case float(Double)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case breakMark
    /// A definite string whose length exceeds the budget; nothing was copied.
    case stringTooLong(Int)
    /// A definite text string that is not valid UTF-8.
    case invalidUTF8
    /// libcbor handed over a null pointer with a non-zero length (should not happen).
    case badPointer
}

/// The context object handed to libcbor through `void *context`.
struct Mailbox {
    /// The event of the most recent callback.
    var event: StreamEvent = .nothing
    /// How many bytes the next definite string may have before it is refused uncopied.
    var stringBudget: Int = 0

    /// Returns the pending event and resets the slot.
    mutating func take() -> StreamEvent {
        var taken = StreamEvent.nothing
        swap(&taken, &event)
        return taken
    }
}

@inline(__always)
private func post(_ context: UnsafeMutableRawPointer?, _ event: StreamEvent) {
    guard let context = unsafe context else { return }
    unsafe context.assumingMemoryBound(to: Mailbox.self).pointee.event = event
}

@inline(__always)
private func postString(
    _ context: UnsafeMutableRawPointer?,
    _ data: UnsafePointer<UInt8>?,
    _ length: Int,
    isText: Bool
) {
    guard let context = unsafe context else { return }
    let mailbox = unsafe context.assumingMemoryBound(to: Mailbox.self)
    // Enforce the string limit before copying anything.
    let budget = unsafe mailbox.pointee.stringBudget
    guard length >= 0, length <= budget else {
        unsafe mailbox.pointee.event = .stringTooLong(length)
        return
    }
    guard unsafe data != nil || length == 0 else {
        unsafe mailbox.pointee.event = .badPointer
        return
    }
    let buffer = unsafe UnsafeBufferPointer(start: data, count: length)
    if isText {
        if let string = unsafe String(validating: buffer, as: UTF8.self) {
            unsafe mailbox.pointee.event = .text(string)
        } else {
            unsafe mailbox.pointee.event = .invalidUTF8
        }
    } else {
        unsafe mailbox.pointee.event = .bytes(unsafe Array(buffer))
    }
}

/// `size_t` is imported as `Int`; reinterpret so that a declared count of 2^63 or more stays huge.
@inline(__always)
private func declaredCount(_ size: Int) -> UInt64 {
    UInt64(UInt(bitPattern: size))
}

/// The callback table. Note libcbor 0.8's header comments for the string/collection
/// entries are swapped; the field *names* are what `cbor_stream_decode` calls:
/// `byte_string` / `string` for definite strings (and chunks), `byte_string_start` /
/// `string_start` for indefinite strings, `array_start` / `map_start` for definite
/// collections, `indef_array_start` / `indef_map_start` for indefinite ones.
let streamCallbacks: cbor_callbacks = {
    var callbacks = cbor_callbacks()
    unsafe callbacks.uint8 = { context, value in unsafe post(context, .unsigned(UInt64(value))) }
    unsafe callbacks.uint16 = { context, value in unsafe post(context, .unsigned(UInt64(value))) }
    unsafe callbacks.uint32 = { context, value in unsafe post(context, .unsigned(UInt64(value))) }
    unsafe callbacks.uint64 = { context, value in unsafe post(context, .unsigned(value)) }
    unsafe callbacks.negint8 = { context, value in unsafe post(context, .negative(UInt64(value))) }
    unsafe callbacks.negint16 = { context, value in unsafe post(context, .negative(UInt64(value))) }
    unsafe callbacks.negint32 = { context, value in unsafe post(context, .negative(UInt64(value))) }
    unsafe callbacks.negint64 = { context, value in unsafe post(context, .negative(value)) }
    unsafe callbacks.byte_string = { context, data, length in unsafe postString(context, data, length, isText: false) }
    unsafe callbacks.byte_string_start = { context in unsafe post(context, .bytesStart) }
    unsafe callbacks.string = { context, data, length in unsafe postString(context, data, length, isText: true) }
    unsafe callbacks.string_start = { context in unsafe post(context, .textStart) }
    unsafe callbacks.array_start = { context, size in unsafe post(context, .arrayStart(declaredCount(size))) }
    unsafe callbacks.indef_array_start = { context in unsafe post(context, .indefiniteArrayStart) }
    unsafe callbacks.map_start = { context, size in unsafe post(context, .mapStart(declaredCount(size))) }
    unsafe callbacks.indef_map_start = { context in unsafe post(context, .indefiniteMapStart) }
    unsafe callbacks.tag = { context, value in unsafe post(context, .tag(value)) }
    unsafe callbacks.float2 = { context, value in unsafe post(context, .float(Double(value))) }
    unsafe callbacks.float4 = { context, value in unsafe post(context, .float(Double(value))) }
    unsafe callbacks.float8 = { context, value in unsafe post(context, .float(value)) }
    unsafe callbacks.undefined = { context in unsafe post(context, .undefined) }
    unsafe callbacks.null = { context in unsafe post(context, .null) }
    unsafe callbacks.boolean = { context, value in unsafe post(context, .bool(value)) }
    unsafe callbacks.indef_break = { context in unsafe post(context, .breakMark) }
    return callbacks
}()
