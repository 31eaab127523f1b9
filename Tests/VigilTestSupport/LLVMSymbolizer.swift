import Foundation
import VigilCore

/// Symbolicates absolute stack addresses with `llvm-symbolizer`, through the images an event
/// carries: for tests and the demo until Vigil's own symbolicator lands.
///
/// Each address is mapped to the image that contains it and looked up at
/// `address - loadAddress` (right for PIE executables and shared libraries, whose lowest
/// `PT_LOAD` sits at virtual address 0). Return addresses (every frame but the first of a
/// stack) are looked up one byte earlier, inside their call instruction.
public enum LLVMSymbolizer {
    /// One symbolicated frame.
    public struct Frame: Sendable, Hashable {
        /// The absolute address from the stack.
        public var address: Address
        /// The containing image's name, nil when no image contains the address.
        public var image: String?
        /// The function's linkage name as the symbolizer reports it (Swift names stay mangled;
        /// the identifiers they contain appear verbatim), nil when unknown.
        public var function: String?
        /// `file:line` when debug info had it.
        public var location: String?
    }

    /// The `llvm-symbolizer` to run: `$VIGIL_SYMBOLIZER`, the toolchain's, or Debian's 15.
    public static func executable() throws -> URL {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["VIGIL_SYMBOLIZER"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/llvm-symbolizer" }
        candidates += ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-15", "/usr/bin/llvm-symbolizer"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        throw TestSupportError("llvm-symbolizer not found: install the Swift toolchain or llvm-15 (scripts/bootstrap)")
    }

    /// Symbolicates one stack (innermost first) against `images`.
    public static func symbolicate(stack: [Address], images: [ImageInfo]) throws -> [Frame] {
        try symbolicate(stacks: [stack], images: images).first ?? []
    }

    /// Symbolicates several stacks with one symbolizer run per image file (loading a large
    /// binary's debug info dominates the cost).
    public static func symbolicate(stacks: [[Address]], images: [ImageInfo]) throws -> [[Frame]] {
        var result = stacks.map { $0.map { Frame(address: $0, image: nil, function: nil, location: nil) } }
        var lookups: [String: [(stack: Int, frame: Int, offset: UInt64)]] = [:]
        for (stackIndex, stack) in stacks.enumerated() {
            for (frameIndex, address) in stack.enumerated() {
                guard let image = images.first(where: { $0.contains(address) }) else { continue }
                result[stackIndex][frameIndex].image = image.name
                guard let path = image.path, FileManager.default.fileExists(atPath: path) else { continue }
                let lookup = address.value - image.loadAddress.value - (frameIndex > 0 ? 1 : 0)
                lookups[path, default: []].append((stackIndex, frameIndex, lookup))
            }
        }
        let tool = try executable()
        for (path, entries) in lookups {
            let input = entries.map { "0x" + String($0.offset, radix: 16) }.joined(separator: "\n") + "\n"
            let output = try run(tool, ["--obj=\(path)", "--output-style=JSON", "--functions=linkage", "--no-demangle"],
                                 input: input)
            for (entry, line) in zip(entries, output.split(separator: "\n")) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let symbols = object["Symbol"] as? [[String: Any]], let first = symbols.first else { continue }
                if let name = first["FunctionName"] as? String, !name.isEmpty {
                    result[entry.stack][entry.frame].function = name
                }
                if let file = first["FileName"] as? String, !file.isEmpty {
                    result[entry.stack][entry.frame].location = "\(file):\(first["Line"] as? Int ?? 0)"
                }
            }
        }
        return result
    }

    private static func run(_ tool: URL, _ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
