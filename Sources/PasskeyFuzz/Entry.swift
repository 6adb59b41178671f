import Foundation

// Two builds of one executable (see docs/testing.md "Fuzzing" and scripts/fuzz.sh):
//
// - the fuzz build (`-DFUZZING -sanitize=fuzzer,address`, scratch path .build-fuzz): libFuzzer drives
//   `LLVMFuzzerTestOneInput`, the target named by PASSKEYD_FUZZ_TARGET. SwiftPM links an executable target's entry
//   point as `PasskeyFuzz_main`, so that function hands over to libFuzzer's driver (LLVMFuzzerRunDriver) instead
//   of libFuzzer's own `main`.
// - the normal build: a command-line tool that replays inputs through the same target functions and writes the
//   seed corpora from the test vectors.

#if FUZZING

/// The target of this process, from PASSKEYD_FUZZ_TARGET.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PASSKEYD_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        FileHandle.standardError.write(Data("passkeyd-fuzz: set PASSKEYD_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(input)
    return 0
}

@_extern(c, "LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("PasskeyFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    // `passkeyd-fuzz seeds VECTORS OUTPUT` works in this build too, so scripts/fuzz.sh needs one build only.
    let arguments = CommandLine.arguments
    if arguments.count == 4, arguments[1] == "seeds" {
        do {
            let counts = try Seeds.write(vectors: arguments[2], to: arguments[3])
            for target in FuzzTarget.allCases { print("\(target.rawValue) \(counts[target, default: 0])") }
            return 0
        } catch {
            FileHandle.standardError.write(Data("passkeyd-fuzz: \(error)\n".utf8))
            return 2
        }
    }
    _ = selectedTarget
    var argc = argc
    var argv = argv
    return llvmFuzzerRunDriver(&argc, &argv, fuzzTestOneInput)
}

#else

@main
struct PasskeyFuzzTool {
    static let usage = """
        usage: passkeyd-fuzz run TARGET PATH…         replay files (directories: every file inside) through TARGET
               passkeyd-fuzz seeds VECTORS OUTPUT     write a seed corpus per target to OUTPUT/TARGET/
               passkeyd-fuzz list                     the targets
        targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))
        """

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "run" where arguments.count >= 3:
            guard let target = FuzzTarget(rawValue: arguments[1]) else { fail("unknown target \(arguments[1])") }
            var count = 0
            var accepted = 0
            for path in arguments.dropFirst(2) {
                for file in files(at: path) {
                    guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
                    if target.run(Array(data)) { accepted += 1 }
                    count += 1
                }
            }
            print("passkeyd-fuzz: \(target.rawValue): \(count) inputs (\(accepted) accepted), no crash")
        case "seeds" where arguments.count == 3:
            do {
                let counts = try Seeds.write(vectors: arguments[1], to: arguments[2])
                for target in FuzzTarget.allCases {
                    print("\(target.rawValue) \(counts[target, default: 0])")
                }
            } catch {
                fail("\(error)")
            }
        case "list":
            for target in FuzzTarget.allCases { print(target.rawValue) }
        default:
            fail(usage)
        }
    }

    /// `path` itself, or every regular file below it.
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { fail("no such file \(path)") }
        guard isDirectory.boolValue else { return [path] }
        let names = (FileManager.default.subpaths(atPath: path) ?? []).sorted()
        return names.map { path + "/" + $0 }.filter {
            var nested: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &nested) && !nested.boolValue
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("passkeyd-fuzz: \(message)\n".utf8))
        exit(2)
    }
}

#endif
