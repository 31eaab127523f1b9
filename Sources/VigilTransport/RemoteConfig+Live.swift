import VigilCore

extension RemoteConfig {
    /// The configuration to run with after `fetched` arrived while `self` (the one applied at
    /// start) is in force: the kill switch, sampling, the upload policy and the refresh
    /// interval change live; a module can be switched off live but on again only if it was
    /// on at start (its detector is installed at start); the hang threshold waits for the
    /// next start.
    public func applyingLive(_ fetched: RemoteConfig) -> RemoteConfig {
        var live = self
        live.enabled = fetched.enabled
        live.sampling = fetched.sampling
        live.upload = fetched.upload
        live.refreshSeconds = fetched.refreshSeconds
        for module in RemoteConfigModule.allCases {
            live.modules[module] = (modules[module] ?? true) && (fetched.modules[module] ?? true)
        }
        return live
    }
}
