/// The process a report is about.
public struct ProcessDetails: Sendable, Hashable, Codable {
    /// Executable name, e.g. `TouchCanvas`.
    public var name: String?
    /// Process identifier.
    public var pid: Int?
    /// Executable path on the device.
    public var path: String?
    /// Name of the parent process, e.g. `launchd`.
    public var parentName: String?
    /// Parent process identifier.
    public var parentPID: Int?
    /// Task role at the time of the report, e.g. `Foreground`.
    public var role: String?

    public init(name: String? = nil, pid: Int? = nil, path: String? = nil, parentName: String? = nil,
                parentPID: Int? = nil, role: String? = nil) {
        self.name = name
        self.pid = pid
        self.path = path
        self.parentName = parentName
        self.parentPID = parentPID
        self.role = role
    }
}

/// The app bundle a process belongs to.
public struct AppDetails: Sendable, Hashable, Codable {
    /// `CFBundleIdentifier`.
    public var bundleID: String?
    /// `CFBundleShortVersionString`, e.g. `3.2.0`.
    public var version: String?
    /// `CFBundleVersion`, e.g. `412`.
    public var build: String?

    public init(bundleID: String? = nil, version: String? = nil, build: String? = nil) {
        self.bundleID = bundleID
        self.version = version
        self.build = build
    }
}

/// The operating system and hardware a report comes from.
public struct SystemDetails: Sendable, Hashable, Codable {
    /// OS name as Apple writes it: `iPhone OS`, `macOS`, `Mac OS X`, `watchOS`…
    public var osName: String?
    /// OS version, e.g. `17.5.1`.
    public var osVersion: String?
    /// OS build, e.g. `21F90`.
    public var osBuild: String?
    /// Hardware model identifier, e.g. `iPhone14,2`.
    public var deviceModel: String?
    /// Apple's code type: `ARM-64`, `X86-64`, `ARM`, `X86`.
    public var cpuType: String?
    /// Architecture of the main executable: `arm64`, `arm64e`, `x86_64`…
    public var architecture: String?
    /// Whether an x86_64 process ran translated by Rosetta.
    public var translated: Bool?

    public init(osName: String? = nil, osVersion: String? = nil, osBuild: String? = nil, deviceModel: String? = nil,
                cpuType: String? = nil, architecture: String? = nil, translated: Bool? = nil) {
        self.osName = osName
        self.osVersion = osVersion
        self.osBuild = osBuild
        self.deviceModel = deviceModel
        self.cpuType = cpuType
        self.architecture = architecture
        self.translated = translated
    }

    /// `iPhone OS 17.5.1 (21F90)`, the way Apple's text reports write the OS.
    public var osDescription: String? {
        guard osName != nil || osVersion != nil else { return nil }
        var text = [osName, osVersion].compactMap { $0 }.joined(separator: " ")
        if let osBuild { text += " (\(osBuild))" }
        return text
    }
}

/// The Mach exception and BSD signal that ended a process.
public struct ExceptionDetails: Sendable, Hashable, Codable {
    /// Mach exception name, e.g. `EXC_BAD_ACCESS`; for macOS reports that give only a signal,
    /// the signal name.
    public var type: String?
    /// BSD signal name, e.g. `SIGSEGV`.
    public var signal: String?
    /// The exception codes as numbers (code, subcode), when they were numeric.
    public var codes: [UInt64]
    /// The codes as written, e.g. `0x0000000000000001, 0x0000000000000000` or `SEGV_MAPERR at 0x88`.
    public var codesText: String?
    /// Human-readable subtype, e.g. `KERN_INVALID_ADDRESS at 0x0000000000000010`.
    public var subtype: String?
    /// `Exception Message`, e.g. `Thread stack size exceeded due to excessive recursion`.
    public var message: String?
    /// `Exception Note`, e.g. `EXC_CORPSE_NOTIFY`.
    public var note: String?
    /// The faulting address of a memory access exception, when the report gives it.
    public var faultAddress: UInt64?

    public init(type: String? = nil, signal: String? = nil, codes: [UInt64] = [], codesText: String? = nil,
                subtype: String? = nil, message: String? = nil, note: String? = nil, faultAddress: UInt64? = nil) {
        self.type = type
        self.signal = signal
        self.codes = codes
        self.codesText = codesText
        self.subtype = subtype
        self.message = message
        self.note = note
        self.faultAddress = faultAddress
    }
}

/// How another party (the kernel, a watchdog, RunningBoard) terminated the process.
public struct TerminationDetails: Sendable, Hashable, Codable {
    /// Reason namespace, e.g. `SIGNAL`, `SPRINGBOARD`, `FRONTBOARD`, `RUNNINGBOARD`.
    public var namespace: String?
    /// Reason code, e.g. `0x8badf00d` as 2343432205, or a signal number in the `SIGNAL` namespace.
    public var code: UInt64?
    /// Short description of the code, e.g. `Segmentation fault: 11`.
    public var indicator: String?
    /// The full reason text: the watchdog's explanation, `RBSTerminateContext`, CPU statistics,
    /// `Termination Description`…, one entry per line as written.
    public var details: [String]
    /// Name of the terminating process, e.g. `exc handler`, `runningboardd`.
    public var byProcess: String?
    /// Identifier of the terminating process.
    public var byPID: Int?

    public init(namespace: String? = nil, code: UInt64? = nil, indicator: String? = nil, details: [String] = [],
                byProcess: String? = nil, byPID: Int? = nil) {
        self.namespace = namespace
        self.code = code
        self.indicator = indicator
        self.details = details
        self.byProcess = byProcess
        self.byPID = byPID
    }

    /// The code in lowercase hex, e.g. `0x8badf00d`.
    public var codeHex: String? { code.map { "0x" + String($0, radix: 16) } }
}

/// An uncaught language-level exception.
public struct LanguageException: Sendable, Hashable, Codable {
    /// Which runtime raised it.
    public enum Kind: String, Sendable, Hashable, Codable {
        case objectiveC, cplusplus, swift
    }

    /// Which runtime raised it.
    public var kind: Kind
    /// Exception name or type, e.g. `NSInvalidArgumentException`, `std::out_of_range`, or
    /// `Fatal error` for a Swift runtime failure.
    public var name: String?
    /// The reason or message.
    public var reason: String?

    public init(kind: Kind, name: String? = nil, reason: String? = nil) {
        self.kind = kind
        self.name = name
        self.reason = reason
    }
}

/// Facts of a hang report.
public struct HangDetails: Sendable, Hashable, Codable {
    /// How long the main thread was unresponsive, in milliseconds.
    public var durationMs: Double?

    public init(durationMs: Double? = nil) {
        self.durationMs = durationMs
    }
}

/// Resource facts of a MetricKit CPU, disk-write or launch diagnostic.
public struct ResourceUsage: Sendable, Hashable, Codable {
    /// CPU time the process used over the sampled interval, in seconds.
    public var cpuTimeSeconds: Double?
    /// Length of the sampled interval, in seconds.
    public var sampledSeconds: Double?
    /// Bytes written to disk.
    public var bytesWritten: Double?
    /// Launch duration, in milliseconds.
    public var launchDurationMs: Double?

    public init(cpuTimeSeconds: Double? = nil, sampledSeconds: Double? = nil, bytesWritten: Double? = nil,
                launchDurationMs: Double? = nil) {
        self.cpuTimeSeconds = cpuTimeSeconds
        self.sampledSeconds = sampledSeconds
        self.bytesWritten = bytesWritten
        self.launchDurationMs = launchDurationMs
    }
}

/// Facts of a jetsam event report.
public struct JetsamDetails: Sendable, Hashable, Codable {
    /// Bytes per memory page (`memoryStatus.pageSize`).
    public var pageSize: UInt64?
    /// Name of the process using the most memory pages.
    public var largestProcess: String?
    /// The processes the system jettisoned (those with a `reason`).
    public var killed: [JetsamProcess]
    /// Number of processes listed in the report.
    public var processCount: Int

    public init(pageSize: UInt64? = nil, largestProcess: String? = nil, killed: [JetsamProcess] = [], processCount: Int = 0) {
        self.pageSize = pageSize
        self.largestProcess = largestProcess
        self.killed = killed
        self.processCount = processCount
    }
}

/// One process of a jetsam event report.
public struct JetsamProcess: Sendable, Hashable, Codable {
    /// Process name.
    public var name: String?
    /// Executable UUID.
    public var uuid: String?
    /// Why it was jettisoned: `per-process-limit`, `vm-pageshortage`, `vnode-limit`,
    /// `highwater`, `fc-thrashing`, `jettisoned`…
    public var reason: String?
    /// Memory states, e.g. `frontmost`, `suspended`.
    public var states: [String]
    /// Resident pages when jettisoned.
    public var residentPages: UInt64?
    /// Most pages the process ever had.
    public var lifetimeMaxPages: UInt64?

    public init(name: String? = nil, uuid: String? = nil, reason: String? = nil, states: [String] = [],
                residentPages: UInt64? = nil, lifetimeMaxPages: UInt64? = nil) {
        self.name = name
        self.uuid = uuid
        self.reason = reason
        self.states = states
        self.residentPages = residentPages
        self.lifetimeMaxPages = lifetimeMaxPages
    }
}
