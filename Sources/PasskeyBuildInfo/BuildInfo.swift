/// What this build of passkeyd is: `version` and `revision` are written before each build by the BuildInfo plugin
/// (Plugins/BuildInfo) from the VERSION file and git. `passkeyd --version` prints `description`; the
/// `passkeyd_build_info{version,revision}` gauge carries both.
public enum BuildInfo {
    /// `passkeyd 0.3.0 (revision 1a2b3c4d5e6f)`.
    public static var description: String { "passkeyd \(version) (revision \(revision))" }
}
