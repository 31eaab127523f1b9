/// What the app asks a terminal to collect a card for.
public struct CardTransactionRequest: Sendable, Hashable {
    /// Sale or refund.
    public enum Kind: UInt8, Sendable, Hashable { case sale = 0, refund = 1 }
    /// Amount in minor units (cents).
    public var amountMinor: UInt64
    /// ISO 4217 numeric currency code (978 = EUR).
    public var currencyCode: UInt16
    /// Sale or refund.
    public var kind: Kind
    /// How long the terminal waits for a card, seconds.
    public var timeoutSeconds: UInt8

    /// A request.
    public init(amountMinor: UInt64, currencyCode: UInt16, kind: Kind = .sale, timeoutSeconds: UInt8 = 60) {
        self.amountMinor = amountMinor
        self.currencyCode = currencyCode
        self.kind = kind
        self.timeoutSeconds = timeoutSeconds
    }
}

/// What the terminal read from the card.
public struct CardTransactionResult: Sendable, Hashable {
    /// How the card was read.
    public enum EntryMode: UInt8, Sendable, Hashable { case chip = 1, contactless = 2, magneticStripe = 3 }
    /// Entry mode.
    public var entryMode: EntryMode
    /// The card number with all but the first six and last four digits masked.
    public var maskedPAN: String
    /// The EMV data (ARQC and tags) for the online authorization, as BER-TLV.
    public var icData: [UInt8]

    /// A result.
    public init(entryMode: EntryMode, maskedPAN: String, icData: [UInt8]) {
        self.entryMode = entryMode
        self.maskedPAN = maskedPAN
        self.icData = icData
    }
}

/// The card's answer to the issuer's response (second generate AC).
public struct SecondAuthorizationResult: Sendable, Hashable {
    /// Whether the card approved.
    public var approved: Bool
    /// Issuer script results to send back to the server.
    public var scriptResults: [UInt8]

    /// A result.
    public init(approved: Bool, scriptResults: [UInt8]) {
        self.approved = approved
        self.scriptResults = scriptResults
    }
}
