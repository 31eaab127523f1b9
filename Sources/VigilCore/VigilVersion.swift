/// The version of this Vigil release, shared by the SDK, the CLI and the server.
public enum VigilVersion {
    /// Semantic version string.
    public static let string = "0.1.0"
}
