import Foundation
import VigilTestSupport

/// Runs a reference tool (llvm-dwarfdump, swift-demangle…) and returns its standard output.
///
/// A missing tool is a failure that names it and says how to install it: a test that compares
/// with a reference never passes without having run it.
enum ToolOutput {
    static func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw TestSupportError("\(tool) is missing: the test compares with it; run scripts/bootstrap "
                + "(llvm-15 from Debian) or install the Swift toolchain at /opt/swift")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // Input goes through a file: a tool that answers as it reads would otherwise fill the
        // output pipe while we are still writing its input.
        var inputFile: URL?
        if let input {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vigil-tool-input-\(UUID().uuidString)")
            try Data(input.utf8).write(to: url)
            process.standardInput = try FileHandle(forReadingFrom: url)
            inputFile = url
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
