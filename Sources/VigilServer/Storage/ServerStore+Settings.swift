extension ServerStore {
    /// The value of server setting `name`.
    public func setting(_ name: String) throws -> String? {
        try database.read { try $0.first("SELECT value FROM settings WHERE name = ?", [.text(name)])?.string("value") }
    }

    /// Sets server setting `name`, replacing any value.
    public func setSetting(_ name: String, _ value: String) throws {
        try database.write { connection in
            try connection.execute("""
                INSERT INTO settings (name, value) VALUES (?, ?)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, [.text(name), .text(value)])
        }
    }

    /// Sets several settings in one transaction, replacing their values: either all change or
    /// none does.
    public func setSettings(_ values: [String: String]) throws {
        try database.write { connection in
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                try connection.execute("""
                    INSERT INTO settings (name, value) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """, [.text(name), .text(value)])
            }
        }
    }

    /// Sets `name` only when it has no value; returns whether this call set it (so that of two
    /// servers starting together exactly one wins).
    public func insertSettingIfAbsent(_ name: String, _ value: String) throws -> Bool {
        try database.write { connection in
            try connection.execute("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                                   [.text(name), .text(value)]) == 1
        }
    }
}
