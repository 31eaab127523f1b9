import Foundation
import VigilCore

/// Turns absolute addresses into `function (image+offset)` lines with `llvm-symbolizer`, through
/// an event's images, for the `report` command. Missing tools degrade to raw offsets and a note
/// in ``problem``.
final class StackSymbolizer {
    private(set) var problem: String?
    private let symbolizer: String?
    private let demangler: String?

    init() {
        let environment = ProcessInfo.processInfo.environment
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/opt/swift/usr/bin", "/usr/bin"]
        func find(_ names: [String]) -> String? {
            for directory in path {
                for name in names where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                    return directory + "/" + name
                }
            }
            return nil
        }
        symbolizer = environment["VIGIL_SYMBOLIZER"].flatMap { $0.isEmpty ? nil : $0 }
            ?? find(["llvm-symbolizer", "llvm-symbolizer-15"])
        demangler = find(["swift-demangle"])
        if symbolizer == nil { problem = "llvm-symbolizer not found: showing image offsets only" }
    }

    /// One line per frame, innermost first.
    func describe(stack: [Address], images: [ImageInfo]) -> [String] {
        var lines: [String] = []
        var names: [String?] = Array(repeating: nil, count: stack.count)
        var lookups: [String: [(index: Int, offset: UInt64)]] = [:]
        var placed: [(image: ImageInfo, offset: UInt64)?] = []
        for (index, address) in stack.enumerated() {
            guard let image = images.first(where: { $0.contains(address) }) else {
                placed.append(nil)
                continue
            }
            let offset = address.value - image.loadAddress.value
            placed.append((image, offset))
            if let path = image.path {
                // Return addresses point after the call: look up the call itself.
                lookups[path, default: []].append((index, offset - (index > 0 && offset > 0 ? 1 : 0)))
            }
        }
        if let symbolizer {
            for (path, entries) in lookups {
                let input = entries.map { "0x" + String($0.offset, radix: 16) }.joined(separator: "\n") + "\n"
                guard let output = run(symbolizer, ["--obj=\(path)", "--output-style=JSON", "--functions=linkage"],
                                       input: input) else { continue }
                for (entry, line) in zip(entries, output.split(separator: "\n")) {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                          let symbol = (object["Symbol"] as? [[String: Any]])?.first,
                          let name = symbol["FunctionName"] as? String, !name.isEmpty else { continue }
                    names[entry.index] = name
                }
            }
        }
        let demangled = demangle(Array(Set(names.compactMap { $0 })))
        for (index, address) in stack.enumerated() {
            let location = placed[index].map { "\($0.image.name)+0x\(String($0.offset, radix: 16))" } ?? address.hex
            let name = names[index].map { demangled[$0] ?? $0 } ?? "?"
            lines.append(String(format: "%2d  ", index) + "\(name)  (\(location))")
        }
        return lines
    }

    private func demangle(_ names: [String]) -> [String: String] {
        guard let demangler, !names.isEmpty,
              let output = run(demangler, ["--simplified", "--compact"], input: names.joined(separator: "\n") + "\n")
        else { return [:] }
        var result: [String: String] = [:]
        for (name, line) in zip(names, output.split(separator: "\n", omittingEmptySubsequences: false)) {
            result[name] = String(line)
        }
        return result
    }

    private func run(_ tool: String, _ arguments: [String], input: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            problem = "cannot run \(tool): \(error.localizedDescription)"
            return nil
        }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
