// The build-info plugin: writes GeneratedBuildInfo.swift with the version from the repository's VERSION file and
// the source revision (git's HEAD, or the REVISION file where there is no .git, as in the Docker build). The work is
// Plugins/BuildInfo/build-info.sh's; this declares what it reads, so the build reruns it when VERSION or the
// checked-out commit changes, and at no other time.
import Foundation
import PackagePlugin

@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedBuildInfo.swift")
        let script = root.appending(path: "Plugins/BuildInfo/build-info.sh")
        // REVISION is not an input: it exists only in the Docker build, which builds once from nothing.
        let inputs = [script, root.appending(path: "VERSION")] + Self.gitInputs(root)
        return [
            .buildCommand(
                displayName: "passkeyd build info (VERSION and the source revision)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, root.path, output.path],
                inputFiles: inputs.filter { FileManager.default.fileExists(atPath: $0.path) },
                outputFiles: [output])
        ]
    }

    /// The files whose change means another commit is checked out: HEAD and its log, which git appends to at every
    /// commit, checkout, reset or pull, in the repository's git directory (`.git`, or the directory a worktree's
    /// `.git` file names). Both stay in place (a ref file can vanish into packed-refs; these do not), so a declared
    /// input never goes missing.
    static func gitInputs(_ root: URL) -> [URL] {
        let dotGit = root.appending(path: ".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return [] }
        var gitDirectory = dotGit
        if !isDirectory.boolValue {
            guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else { return [] }
            let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitDirectory = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appending(path: path)
        }
        return [gitDirectory.appending(path: "HEAD"), gitDirectory.appending(path: "logs/HEAD")]
    }
}
