// Builds a `CBORValue` from the flat stream of header events, enforcing every limit.
//
// No recursion: open arrays/maps/tags live in `frames`, and the finished children of all
// open arrays/maps share one `values` stack. Nothing is ever reserved from a declared
// count; a definite container is only accepted if the input still has at least one byte
// per declared item (two per map entry).

struct TreeBuilder {
    private enum FrameKind {
        case array
        case map
        case tag(UInt64)
    }

    private struct Frame {
        var kind: FrameKind
        /// Index in `values` where this container's children start.
        var start: Int
        /// Children still expected for a definite container (map: keys + values).
        var remaining: Int
        var indefinite: Bool
    }

    private enum ChunkMode {
        case none
        case bytes
        case text
    }

    let limits: CBORLimits
    private var values: [CBORValue] = []
    private var frames: [Frame] = []
    /// Open arrays, maps and tags.
    private var depth = 0
    /// Data items seen so far (every event except `break`).
    private var items = 0
    /// State of an open indefinite-length string (they cannot nest).
    private var chunkMode = ChunkMode.none
    private var chunkBytes: [UInt8] = []
    private var chunkText = ""
    private var chunkTotal = 0
    /// Byte offset of the current item's header (for error reasons only).
    private var offset = 0

    init(limits: CBORLimits) {
        self.limits = limits
        // Small fixed capacities (never derived from the input) avoid regrowth for typical
        // WebAuthn structures such as a 5-entry COSE key.
        values.reserveCapacity(16)
        frames.reserveCapacity(4)
    }

    /// How long the next definite string may be.
    var stringBudget: Int {
        chunkMode == .none ? limits.maxStringBytes : limits.maxStringBytes - chunkTotal
    }

    /// Feeds one header event.
    /// - Parameters:
    ///   - event: What the header decoded to.
    ///   - offset: Byte offset of the header in the input.
    ///   - read: Bytes consumed for this event (header plus string payload).
    ///   - remaining: Input bytes left after this event.
    /// - Returns: The complete top-level value once it is finished, else `nil`.
    mutating func consume(
        _ event: StreamEvent,
        offset: Int,
        read: Int,
        remaining: Int
    ) throws(CBORError) -> CBORValue? {
        self.offset = offset
        if case .breakMark = event {
        } else {
            items += 1
            if items > limits.maxItems {
                throw fail(.tooManyItems, "more than \(limits.maxItems) data items")
            }
        }
        if chunkMode != .none {
            return try consumeChunk(event, read: read)
        }
        switch event {
        case .unsigned(let value):
            try checkMinimal(value, headerLength: read)
            return try complete(.unsigned(value))
        case .negative(let value):
            try checkMinimal(value, headerLength: read)
            return try complete(.negative(value))
        case .bytes(let bytes):
            try checkMinimal(UInt64(bytes.count), headerLength: read - bytes.count)
            return try complete(.bytes(bytes))
        case .text(let text):
            let length = text.utf8.count
            try checkMinimal(UInt64(length), headerLength: read - length)
            return try complete(.text(text))
        case .bytesStart:
            try checkIndefiniteAllowed()
            chunkMode = .bytes
            chunkBytes = []
            chunkTotal = 0
            return nil
        case .textStart:
            try checkIndefiniteAllowed()
            chunkMode = .text
            chunkText = ""
            chunkTotal = 0
            return nil
        case .arrayStart(let count):
            try checkMinimal(count, headerLength: read)
            guard count <= UInt64(remaining) else {
                throw fail(.truncated, "array declares \(count) items but only \(remaining) bytes remain")
            }
            let children = Int(count)
            try checkRoomForItems(children)
            try enter()
            if children == 0 {
                depth -= 1
                return try complete(.array([]))
            }
            frames.append(Frame(kind: .array, start: values.count, remaining: children, indefinite: false))
            return nil
        case .mapStart(let count):
            try checkMinimal(count, headerLength: read)
            guard count <= UInt64(remaining / 2) else {
                throw fail(.truncated, "map declares \(count) entries but only \(remaining) bytes remain")
            }
            let children = Int(count) * 2
            try checkRoomForItems(children)
            try enter()
            if children == 0 {
                depth -= 1
                return try complete(.map([]))
            }
            frames.append(Frame(kind: .map, start: values.count, remaining: children, indefinite: false))
            return nil
        case .indefiniteArrayStart:
            try checkIndefiniteAllowed()
            try enter()
            frames.append(Frame(kind: .array, start: values.count, remaining: 0, indefinite: true))
            return nil
        case .indefiniteMapStart:
            try checkIndefiniteAllowed()
            try enter()
            frames.append(Frame(kind: .map, start: values.count, remaining: 0, indefinite: true))
            return nil
        case .tag(let tag):
            try checkMinimal(tag, headerLength: read)
            try enter()
            frames.append(Frame(kind: .tag(tag), start: values.count, remaining: 1, indefinite: false))
            return nil
        case .float(let value):
            return try complete(.float(value))
        case .bool(let value):
            return try complete(.bool(value))
        case .null:
            return try complete(.null)
        case .undefined:
            return try complete(.undefined)
        case .simple(let value):
            return try complete(.simple(value))
        case .breakMark:
            guard let frame = frames.last, frame.indefinite else {
                throw fail(.malformed, "break outside an indefinite-length item")
            }
            if case .map = frame.kind, (values.count - frame.start) % 2 != 0 {
                throw fail(.malformed, "indefinite-length map ends after a key without a value")
            }
            frames.removeLast()
            return try complete(try close(frame))
        case .stringTooLong(let length):
            throw fail(.stringTooLong, "string of \(length) bytes exceeds \(limits.maxStringBytes)")
        case .invalidUTF8:
            throw fail(.invalidUTF8, "text string is not valid UTF-8")
        case .nothing, .badPointer:
            throw fail(.malformed, "decoder reported no usable item")
        }
    }

    // MARK: indefinite-length strings

    private mutating func consumeChunk(_ event: StreamEvent, read: Int) throws(CBORError) -> CBORValue? {
        switch (event, chunkMode) {
        case (.bytes(let chunk), .bytes):
            try checkMinimal(UInt64(chunk.count), headerLength: read - chunk.count)
            chunkTotal += chunk.count
            chunkBytes.append(contentsOf: chunk)
            return nil
        case (.text(let chunk), .text):
            let length = chunk.utf8.count
            try checkMinimal(UInt64(length), headerLength: read - length)
            chunkTotal += length
            chunkText.append(chunk)
            return nil
        case (.breakMark, .bytes):
            let value = CBORValue.bytes(chunkBytes)
            chunkMode = .none
            chunkBytes = []
            return try complete(value)
        case (.breakMark, .text):
            let value = CBORValue.text(chunkText)
            chunkMode = .none
            chunkText = ""
            return try complete(value)
        case (.stringTooLong, _):
            throw fail(.stringTooLong, "indefinite-length string exceeds \(limits.maxStringBytes) bytes")
        case (.invalidUTF8, _):
            throw fail(.invalidUTF8, "text chunk is not valid UTF-8")
        default:
            throw fail(.malformed, "indefinite-length string chunk must be a definite string of the same major type")
        }
    }

    // MARK: completing items

    /// Attaches a finished item to its parent, closing every container it completes.
    private mutating func complete(_ item: CBORValue) throws(CBORError) -> CBORValue? {
        var value = item
        while let last = frames.indices.last {
            switch frames[last].kind {
            case .tag(let tag):
                frames.removeLast()
                depth -= 1
                value = .tagged(tag, value)
            case .array, .map:
                values.append(value)
                if frames[last].indefinite {
                    return nil
                }
                frames[last].remaining -= 1
                if frames[last].remaining > 0 {
                    return nil
                }
                value = try close(frames.removeLast())
            }
        }
        return value
    }

    /// Turns the children of a just-popped array/map frame into a value.
    private mutating func close(_ frame: Frame) throws(CBORError) -> CBORValue {
        depth -= 1
        defer { values.removeSubrange(frame.start...) }
        switch frame.kind {
        case .array:
            return .array(Array(values[frame.start...]))
        case .map:
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity((values.count - frame.start) / 2)  // actual children, never a declared count
            var index = frame.start
            while index + 1 < values.count {
                entries.append(CBORMapEntry(values[index], values[index + 1]))
                index += 2
            }
            try checkUniqueKeys(entries)
            return .map(entries)
        case .tag:
            throw fail(.malformed, "internal: tag frame closed as a container")
        }
    }

    private func checkUniqueKeys(_ entries: [CBORMapEntry]) throws(CBORError) {
        if entries.count <= 16 {
            for i in entries.indices {
                for j in entries.indices where j > i && entries[i].key == entries[j].key {
                    throw fail(.duplicateMapKey, "map key \(j) repeats key \(i)")
                }
            }
        } else {
            var seen = Set<CBORValue>(minimumCapacity: entries.count)
            for (index, entry) in entries.enumerated() where !seen.insert(entry.key).inserted {
                throw fail(.duplicateMapKey, "map key \(index) is a duplicate")
            }
        }
    }

    // MARK: limit checks

    private mutating func enter() throws(CBORError) {
        guard depth < limits.maxDepth else {
            throw fail(.tooDeep, "nesting deeper than \(limits.maxDepth)")
        }
        depth += 1
    }

    private func checkRoomForItems(_ children: Int) throws(CBORError) {
        guard children <= limits.maxItems - items else {
            throw fail(.tooManyItems, "container declares \(children) children; limit is \(limits.maxItems) items")
        }
    }

    private func checkIndefiniteAllowed() throws(CBORError) {
        guard limits.allowIndefiniteLength else {
            throw fail(.indefiniteLengthNotAllowed, "indefinite-length item")
        }
    }

    /// Rejects an argument (integer, length, count or tag) not encoded in its shortest form.
    /// `headerLength` is the number of header bytes libcbor consumed for it.
    @inline(__always)
    private func checkMinimal(_ argument: UInt64, headerLength: Int) throws(CBORError) {
        guard limits.requireMinimalIntegers else { return }
        let shortest: Int
        switch argument {
        case 0..<24: shortest = 1
        case 24...0xFF: shortest = 2
        case 0x100...0xFFFF: shortest = 3
        case 0x1_0000...0xFFFF_FFFF: shortest = 5
        default: shortest = 9
        }
        guard headerLength == shortest else {
            throw fail(
                .nonMinimalEncoding,
                "argument \(argument) uses \(headerLength) header bytes, shortest is \(shortest)"
            )
        }
    }

    private func fail(_ code: CBORError.Code, _ reason: String) -> CBORError {
        CBORError(code: code, reason: "\(reason) (at byte \(offset))")
    }
}
