/// Termination reason codes the system writes for processes it kills, from Apple's
/// "EXC_CRASH (SIGKILL)" documentation.
public enum TerminationCode {
    /// `0x8badf00d`, "ate bad food": the watchdog killed an unresponsive app.
    public static let watchdog: UInt64 = 0x8BAD_F00D
    /// `0xdead10cc`, "dead lock": the app held a file or SQLite lock while being suspended.
    public static let deadlock: UInt64 = 0xDEAD_10CC
    /// `0xc00010ff`, "cool off": killed for a thermal event.
    public static let thermal: UInt64 = 0xC000_10FF
    /// `0x2182bad2`: a background task did not finish in time.
    public static let backgroundTaskExpired: UInt64 = 0x2182_BAD2
    /// `0x2182bad3`: a background URL session did not finish in time.
    public static let backgroundURLSessionExpired: UInt64 = 0x2182_BAD3
    /// `0x2182bad4`: a background fetch did not finish in time.
    public static let backgroundFetchExpired: UInt64 = 0x2182_BAD4
    /// `0xbaadca11`, "bad call": no CallKit call reported for a PushKit VoIP notification.
    public static let badCall: UInt64 = 0xBAAD_CA11
    /// `0xbad22222`: a VoIP app resumed too often.
    public static let voipResumedTooOften: UInt64 = 0xBAD2_2222
    /// `0xbaddd15c`, "bad disk": killed to purge caches when disk space ran low.
    public static let diskSpace: UInt64 = 0xBADD_D15C
    /// `0xc51bad01`: watchOS background task used too much CPU.
    public static let watchBackgroundCPU: UInt64 = 0xC51B_AD01
    /// `0xc51bad02`: watchOS background task ran too long.
    public static let watchBackgroundTime: UInt64 = 0xC51B_AD02
    /// `0xc51bad03`: watchOS background task ran too long on a busy system.
    public static let watchBackgroundBusy: UInt64 = 0xC51B_AD03
    /// `0xd00d2bad`, "dude, too bad": excessive use of key system resources.
    public static let resourceOveruse: UInt64 = 0xD00D_2BAD
}
