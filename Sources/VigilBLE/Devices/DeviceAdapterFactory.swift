/// Picks the ``DeviceAdapter`` for a terminal from what it advertises: a registered service
/// UUID first, then a registered name prefix (case-insensitive).
public struct DeviceAdapterFactory: Sendable {
    /// One terminal family.
    public struct Registration: Sendable {
        /// Family name.
        public var vendor: String
        /// Advertised local-name prefixes that identify the family.
        public var namePrefixes: [String]
        /// Advertised services that identify the family.
        public var services: [BLEUUID]
        /// The GATT profile its adapter needs.
        public var profile: GATTProfile
        /// Makes the adapter on a ready connection.
        public var make: @Sendable (BLEConnection) -> any DeviceAdapter

        /// A registration.
        public init(vendor: String, namePrefixes: [String], services: [BLEUUID], profile: GATTProfile,
                    make: @escaping @Sendable (BLEConnection) -> any DeviceAdapter) {
            self.vendor = vendor
            self.namePrefixes = namePrefixes
            self.services = services
            self.profile = profile
            self.make = make
        }

        /// Whether `advertisement` belongs to this family, and how (`service` or `name`).
        public func match(_ advertisement: Advertisement) -> String? {
            if advertisement.services.contains(where: services.contains) { return "service" }
            if let name = advertisement.name?.lowercased(), namePrefixes.contains(where: { name.hasPrefix($0.lowercased()) }) {
                return "name"
            }
            return nil
        }
    }

    /// Families, tried in order.
    public var registrations: [Registration]

    /// A factory over `registrations`.
    public init(registrations: [Registration]) { self.registrations = registrations }

    /// The two built-in families: `0xAA55` frames and TLV + CRC-16.
    public static let builtIn = DeviceAdapterFactory(registrations: [FramedTerminalAdapter.registration, TLVTerminalAdapter.registration])

    /// The family of `advertisement`: a service match anywhere wins over a name match.
    public func registration(for advertisement: Advertisement) -> Registration? {
        registrations.first { $0.match(advertisement) == "service" } ?? registrations.first { $0.match(advertisement) != nil }
    }

    /// A connection target that accepts any advertisement a family claims and uses its profile.
    /// Scans every advertisement (families matched by name advertise no service).
    public var connectionTarget: ConnectionTarget {
        let factory = self
        return ConnectionTarget(scanServices: []) { advertisement in factory.registration(for: advertisement)?.profile }
    }
}
