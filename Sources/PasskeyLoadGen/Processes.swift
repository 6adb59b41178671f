// The processes around the load generator: the servers' resident memory read from /proc, and starting a helper
// (psql, perf record) without Foundation's Process.
import Foundation

func rssKiB(_ pid: Int32?) -> Int? {
    guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}

/// VmRSS summed over the instances; nil if none could be read.
func rssKiB(_ pids: [Int32]) -> Int? {
    let readings = pids.compactMap { rssKiB($0) }
    return readings.isEmpty ? nil : readings.reduce(0, +)
}

/// Starts `arguments` (absolute path first) without waiting; nil if it cannot start. (posix_spawn: Foundation's
/// Process.waitUntilExit hung here on Linux when called from the main actor during a phase.)
func spawn(_ arguments: [String]) -> pid_t? {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    // The child starts with default signal handling (this process's runtime may ignore SIGCHLD or SIGPIPE, and
    // ignored signals stay ignored across exec).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGCHLD, SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, signal) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let rc = posix_spawn(&pid, arguments[0], nil, &attributes, &argv, environ)
    return rc == 0 ? pid : nil
}
