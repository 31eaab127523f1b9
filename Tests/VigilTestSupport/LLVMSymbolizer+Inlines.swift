import Foundation
import VigilCore

extension LLVMSymbolizer {
    /// Every function name `llvm-symbolizer` gives for each frame of `stack`, inlined frames
    /// included (innermost first), as linkage names. A trap that the compiler inlined (Swift's
    /// overflow and bounds checks) symbolicates to a pseudo-frame such as
    /// `Swift runtime failure: arithmetic overflow` with the real function one level out, so a
    /// test looking for "the function that crashed" needs all the levels.
    public static func functionNamesWithInlines(stack: [Address], images: [ImageInfo]) throws -> [[String]] {
        var result = Array(repeating: [String](), count: stack.count)
        var lookups: [String: [(frame: Int, offset: UInt64)]] = [:]
        for (index, address) in stack.enumerated() {
            guard let image = images.first(where: { $0.contains(address) }), let path = image.path,
                  FileManager.default.fileExists(atPath: path) else { continue }
            lookups[path, default: []].append((index, address.value - image.loadAddress.value - (index > 0 ? 1 : 0)))
        }
        let tool = try executable()
        for (path, entries) in lookups {
            let process = Process()
            process.executableURL = tool
            process.arguments = ["--obj=\(path)", "--output-style=JSON", "--functions=linkage", "--no-demangle", "--inlines"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data((entries.map { "0x" + String($0.offset, radix: 16) }.joined(separator: "\n") + "\n").utf8))
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            for (entry, line) in zip(entries, lines) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let symbols = object["Symbol"] as? [[String: Any]] else { continue }
                result[entry.frame] = symbols.compactMap { $0["FunctionName"] as? String }.filter { !$0.isEmpty }
            }
        }
        return result
    }
}
