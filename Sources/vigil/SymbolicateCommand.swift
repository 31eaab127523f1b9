import Foundation
import VigilCommandLine
import VigilSymbols

/// `vigil symbolicate`: atos-compatible symbolication of addresses with a dSYM, a Mach-O or an
/// ELF file; addresses from the command line, or streamed from standard input.
enum SymbolicateCommand: Command {
    static let name = "symbolicate"
    static let summary = "symbolicate addresses like atos (dSYM, Mach-O or ELF)"
    static let usage = """
        usage: vigil symbolicate --object PATH [--dsym PATH] [--arch ARCH] [--load-address HEX] [--inline]
                                 [--return-addresses] [--names atos|full|raw] [ADDR...]

          --object PATH        a dSYM bundle, its DWARF file, a Mach-O (thin or fat), an ELF file,
                               or a SymCache made by `vigil symcache build`. A binary without DWARF
                               uses the PATH.dSYM (or App.app.dSYM) beside it when there is one
          --dsym PATH          the dSYM bundle or debug file to use for the --object binary (its
                               file of the binary's UUID and architecture)
          --arch ARCH          the slice of a fat file (arm64, x86_64…); required when there are several
          --load-address HEX   where the image was loaded; addresses are then runtime addresses
                               (without it they are file addresses, e.g. 0x100004a10)
          --inline             print every frame of an address (inlined ones first), then an empty line
          --return-addresses   the addresses are return addresses (caller frames): look up the call
          --names STYLE        atos (default: Swift simplified, C++ demangled), full, or raw (mangled)

        One line per address: `function (in Image) (File.swift:42)`. With no ADDR, addresses are
        read from standard input, one per line (or separated by spaces), and each answer is written
        as soon as its line has been read.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["object", "dsym", "arch", "load-address", "names"])
        let unknown = arguments.unknown(allowedFlags: ["inline", "return-addresses"],
                                        allowedValues: ["object", "dsym", "arch", "load-address", "names"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let objectPath = try arguments.required("object")
        let loadAddress = try arguments.value("load-address").map { try AddressArgument.required($0, "--load-address") }
        let style: AtosFormatter.NameStyle
        switch arguments.value("names") ?? "atos" {
        case "atos": style = .atos
        case "full": style = .full
        case "raw": style = .raw
        case let other: throw UsageError("--names: \"\(other)\" is not atos, full or raw")
        }
        let addresses = try arguments.positional.map { try AddressArgument.required($0, "address") }

        let cache: SymCache
        let imageName: String
        if SymCache.isSymCache(atPath: objectPath) {
            cache = try SymCache(contentsOf: objectPath)
            if let arch = arguments.value("arch"), arch != cache.arch {
                throw SymbolsError(.architectureNotFound, "the SymCache is for \(cache.arch), not \(arch)", path: objectPath)
            }
            imageName = ((objectPath as NSString).lastPathComponent as NSString).deletingPathExtension
        } else {
            var slice = try ObjectFile.open(path: objectPath, id: nil, arch: arguments.value("arch")).slice(arch: arguments.value("arch"))
            // A binary's debug information: --dsym, else the dSYM Xcode leaves beside it.
            if let dsym = arguments.value("dsym") ?? (slice.hasDWARF ? nil : ObjectFile.dSYMBeside(binary: objectPath)) {
                let debug = try ObjectFile.open(path: dsym, id: slice.id, arch: slice.arch)
                let match = slice.id.flatMap { debug.slice(id: $0) }
                guard let match = try match ?? (slice.id == nil ? debug.slice(arch: slice.arch) : nil) else {
                    throw SymbolsError(.architectureNotFound, "\(dsym) has no slice with the binary's UUID \(slice.id.map { "\($0)" } ?? "?")", path: dsym)
                }
                if arguments.value("dsym") == nil { CommandDispatcher.writeStandardError("note: using \(dsym) for \(objectPath)") }
                slice = match
            }
            let output = try SymCacheWriter().write(slice)
            for warning in output.warnings.prefix(20) { CommandDispatcher.writeStandardError("warning: \(warning)") }
            if output.warnings.count > 20 { CommandDispatcher.writeStandardError("warning: \(output.warnings.count - 20) more problems skipped") }
            cache = try SymCache(data: output.data)
            imageName = slice.imageName ?? "image"
        }
        var formatter = AtosFormatter(cache: cache, imageName: imageName, nameStyle: style)
        let inline = arguments.flag("inline")
        let returnAddresses = arguments.flag("return-addresses")

        func relative(_ address: UInt64) -> UInt64? {
            if let loadAddress { return address >= loadAddress ? address - loadAddress : nil }
            return address >= cache.imageVMAddress ? address - cache.imageVMAddress : nil
        }

        let buffer = ByteArena()
        if !addresses.isEmpty {
            for address in addresses {
                formatter.append(address: address, relativeAddress: relative(address) ?? .max,
                                 isReturnAddress: returnAddresses, inline: inline, to: buffer)
            }
            StandardStreams.write(buffer.bytes)
            return 0
        }

        // Batch mode: answer everything read so far before waiting for more input. Addresses
        // are looked up in groups (faster), and a group never waits for input to fill up.
        var status: Int32 = 0
        var pendingAddresses: [UInt64] = []
        var pendingRelative: [UInt64] = []
        pendingAddresses.reserveCapacity(256)
        pendingRelative.reserveCapacity(256)
        func answerPending() {
            guard !pendingAddresses.isEmpty else { return }
            formatter.append(addresses: pendingAddresses, relativeAddresses: pendingRelative,
                             isReturnAddress: returnAddresses, inline: inline, to: buffer)
            pendingAddresses.removeAll(keepingCapacity: true)
            pendingRelative.removeAll(keepingCapacity: true)
            // Small writes keep the output buffer in cache, where the lookups need the room.
            if buffer.count >= 1 << 15 {
                StandardStreams.write(buffer.bytes)
                buffer.removeAll()
            }
        }
        StandardStreams.readLines { line in
            guard let address = AddressArgument.parse(bytes: line) else {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if text.isEmpty { return }
                answerPending() // keep the answers in input order
                buffer.append("?? (not an address: \(text))\n")
                if inline { buffer.append(10) }
                status = 1
                return
            }
            pendingAddresses.append(address)
            pendingRelative.append(relative(address) ?? .max)
            if pendingAddresses.count == 256 { answerPending() }
        } flush: {
            answerPending()
            StandardStreams.write(buffer.bytes)
            buffer.removeAll()
        }
        return status
    }
}
