/// What this build is: the version `--version` prints, Home Assistant shows and the package is
/// named by (scripts/package.sh reads it from this file).
enum BuildInfo {
    static let version = "0.3.0"
}
