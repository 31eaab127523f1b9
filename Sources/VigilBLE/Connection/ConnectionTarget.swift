/// The GATT layout a connection needs: one service, the characteristics it uses, and which of
/// them must notify before the link counts as ready.
public struct GATTProfile: Sendable, Hashable {
    /// The primary service.
    public var service: BLEUUID
    /// Characteristics that must exist (written to, read, or notifying).
    public var characteristics: [BLEUUID]
    /// Characteristics whose notifications (or indications) are enabled and confirmed before
    /// `ready`.
    public var notifying: [BLEUUID]

    /// A profile; notifying characteristics are added to the required ones.
    public init(service: BLEUUID, characteristics: [BLEUUID], notifying: [BLEUUID]) {
        self.service = service
        var all = characteristics
        for uuid in notifying where !all.contains(uuid) { all.append(uuid) }
        self.characteristics = all
        self.notifying = notifying
    }
}

/// Which peer a connection looks for and what it needs from it.
///
/// Either scan (for advertised services, letting ``select`` accept an advertisement and name
/// the profile it needs), or connect directly to a known peer with a known profile (a peer seen
/// before, or one handed back by state restoration).
public struct ConnectionTarget: Sendable {
    /// Services to scan for (all advertisements when empty).
    public var scanServices: [BLEUUID]
    /// Accepts an advertisement by returning the profile to use, or rejects it with `nil`.
    public var select: @Sendable (Advertisement) -> GATTProfile?
    /// A peer to connect to without scanning, with its profile.
    public var knownPeer: (peer: PeerIdentifier, profile: GATTProfile)?

    /// A target found by scanning.
    public init(scanServices: [BLEUUID], select: @escaping @Sendable (Advertisement) -> GATTProfile?) {
        self.scanServices = scanServices
        self.select = select
        self.knownPeer = nil
    }

    /// A target that accepts any peer advertising `profile.service`.
    public static func service(_ profile: GATTProfile) -> ConnectionTarget {
        ConnectionTarget(scanServices: [profile.service]) { advertisement in
            advertisement.services.contains(profile.service) ? profile : nil
        }
    }

    /// A known peer, connected to directly.
    public static func peer(_ peer: PeerIdentifier, profile: GATTProfile) -> ConnectionTarget {
        var target = ConnectionTarget(scanServices: [profile.service]) { $0.peer == peer ? profile : nil }
        target.knownPeer = (peer, profile)
        return target
    }
}
