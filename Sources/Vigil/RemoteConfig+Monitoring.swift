import VigilCore

extension RemoteConfig {
    /// The app's monitoring settings with this document's start-time decisions applied: the
    /// kill switch (off → every module off), the module switches and the hang threshold.
    /// Sampling and the upload policy are applied by the delivery pipeline instead.
    func applied(to monitoring: VigilConfiguration) -> VigilConfiguration {
        var result = monitoring
        if !enabled {
            result.enabledModules = []
            return result
        }
        for module in RemoteConfigModule.allCases where !isEnabled(module) {
            if let local = module.monitoringModule { result.enabledModules.remove(local) }
        }
        if let threshold = hangThresholdMs { result.hang.thresholdMs = threshold }
        return result
    }
}

extension RemoteConfigModule {
    /// The detector module this switch turns off; `nil` for `ble`, which the BLE library reads
    /// itself.
    var monitoringModule: VigilModule? {
        switch self {
        case .hangs: return .hang
        case .frames: return .frames
        case .launch: return .launch
        case .network: return .network
        case .crashes: return .crash
        case .resources: return .resource
        case .ble: return nil
        }
    }
}
