/// One frame of a stack after processing: which image and offset the address fell in, the
/// source location when symbols are available, and whether it is the app's own code.
public struct ResolvedFrame: Sendable, Hashable, Codable {
    /// The absolute address as captured (`0x…`).
    public var address: String
    /// The image's file name, when the address fell inside a known image.
    public var image: String?
    /// The image's debug id.
    public var imageID: String?
    /// Offset from the image's load address.
    public var offset: UInt64?
    /// Function name, when symbolicated.
    public var function: String?
    /// Source file, when known.
    public var file: String?
    /// Source line, when known.
    public var line: Int?
    /// Whether the image is the app's own (its bundle or main executable).
    public var inApp: Bool
    /// Whether this entry is code inlined into the next entry (same address).
    public var inlined: Bool

    /// Creates a frame.
    public init(address: String, image: String? = nil, imageID: String? = nil, offset: UInt64? = nil, function: String? = nil,
                file: String? = nil, line: Int? = nil, inApp: Bool = false, inlined: Bool = false) {
        self.address = address
        self.image = image
        self.imageID = imageID
        self.offset = offset
        self.function = function
        self.file = file
        self.line = line
        self.inApp = inApp
        self.inlined = inlined
    }

    /// `frames` as a JSON array, in the form `Codable` reads back (written by hand: it runs for
    /// every crash and hang processed).
    public static func json(_ frames: [ResolvedFrame]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for frame in frames {
            writer.beginObject()
            writer.key("address"); writer.string(frame.address)
            if let image = frame.image { writer.key("image"); writer.string(image) }
            if let imageID = frame.imageID { writer.key("imageID"); writer.string(imageID) }
            if let offset = frame.offset { writer.key("offset"); writer.number(Int64(bitPattern: offset)) }
            if let function = frame.function { writer.key("function"); writer.string(function) }
            if let file = frame.file { writer.key("file"); writer.string(file) }
            if let line = frame.line { writer.key("line"); writer.number(line) }
            writer.key("inApp"); writer.bool(frame.inApp)
            writer.key("inlined"); writer.bool(frame.inlined)
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    /// A one-line rendering: `function (file:line)`, or `image + 0xoffset`, or the address.
    public var label: String {
        if let function {
            if let file { return "\(function) (\(file.split(separator: "/").last.map(String.init) ?? file)\(line.map { ":\($0)" } ?? ""))" }
            return function
        }
        if let image, let offset { return "\(image) + 0x\(String(offset, radix: 16))" }
        return address
    }
}
