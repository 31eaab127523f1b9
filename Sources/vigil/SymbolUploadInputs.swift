import Foundation
import VigilSymbols

/// Turns `vigil upload-symbols` arguments — or, with none, the Xcode build settings a Run
/// Script phase sees — into the debug files to send, one path each.
///
/// A dSYM bundle gives its DWARF files; a folder that is not a bundle (Xcode's
/// `DWARF_DSYM_FOLDER_PATH`, an archive's `dSYMs` folder) gives every `*.dSYM` bundle directly
/// in it; an `.xcarchive` gives its `dSYMs` folder's bundles; any other file is sent as it is
/// (a Mach-O, fat or ELF file, or a zip / tar / tar.gz of them, which the server unpacks).
struct SymbolUploadInputs {
    /// The build settings read from the environment when no path is given.
    struct XcodeSettings {
        /// `DWARF_DSYM_FOLDER_PATH`: the folder Xcode writes dSYMs to.
        var dsymFolder: String?
        /// `DEBUG_INFORMATION_FORMAT`: `dwarf-with-dsym` makes dSYMs, `dwarf` does not.
        var debugInformationFormat: String?
        /// `CONFIGURATION`, e.g. `Release`, for the message about a missing dSYM.
        var configuration: String?

        init(environment: [String: String]) {
            dsymFolder = environment["DWARF_DSYM_FOLDER_PATH"].flatMap { $0.isEmpty ? nil : $0 }
            debugInformationFormat = environment["DEBUG_INFORMATION_FORMAT"].flatMap { $0.isEmpty ? nil : $0 }
            configuration = environment["CONFIGURATION"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Why nothing could be sent for a path.
    struct InputError: Error, CustomStringConvertible {
        var description: String
    }

    let settings: XcodeSettings

    /// The paths to resolve: the arguments, or the dSYM folder of the Xcode build running this.
    func paths(_ arguments: [String]) throws(InputError) -> [String] {
        if !arguments.isEmpty { return arguments }
        guard let folder = settings.dsymFolder else {
            throw InputError(description: "missing PATH: name a .dSYM bundle, a folder of them or a debug file "
                + "(inside an Xcode build phase, ${DWARF_DSYM_FOLDER_PATH} is used when no PATH is given)")
        }
        return [folder]
    }

    /// The files to send for `path`, in a stable order.
    func files(for path: String) throws(InputError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if looksLikeDSYMLocation(path) { throw InputError(description: missingDSYM(path, what: "no dSYM at")) }
            throw InputError(description: "no such file: \(path)")
        }
        guard isDirectory.boolValue else { return [path] }
        let url = URL(fileURLWithPath: path)
        if url.pathExtension.lowercased() == "dsym" {
            let files: [String]
            do throws(SymbolsError) {
                files = try ObjectFile.debugFiles(inBundle: path)
            } catch {
                throw InputError(description: "\(path): \(error)")
            }
            guard !files.isEmpty else { throw InputError(description: "\(path): the dSYM bundle has no DWARF file") }
            return files
        }
        let folder = url.pathExtension.lowercased() == "xcarchive" ? url.appendingPathComponent("dSYMs").path : path
        let bundles = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.lowercased().hasSuffix(".dsym") && !$0.hasPrefix(".") }
            .sorted()
        guard !bundles.isEmpty else {
            throw InputError(description: missingDSYM(folder, what: "no .dSYM bundle in"))
        }
        var files: [String] = []
        for bundle in bundles {
            files += try self.files(for: (folder as NSString).appendingPathComponent(bundle))
        }
        return files
    }

    private func looksLikeDSYMLocation(_ path: String) -> Bool {
        let standardized = (path as NSString).standardizingPath
        return path.lowercased().contains(".dsym") || path.lowercased().hasSuffix(".xcarchive")
            || settings.dsymFolder.map { ($0 as NSString).standardizingPath == standardized } == true
    }

    /// The message for a dSYM that Xcode did not write, naming the build setting that decides it.
    private func missingDSYM(_ path: String, what: String) -> String {
        var text = "\(what) \(path).\n"
        text += "Xcode writes dSYMs only when the build setting DEBUG_INFORMATION_FORMAT is dwarf-with-dsym "
        text += "(Build Settings › Debug Information Format › \"DWARF with dSYM File\"; Debug configurations default to dwarf)"
        if let format = settings.debugInformationFormat {
            text += "; here it is \(format)"
            if let configuration = settings.configuration { text += " for the \(configuration) configuration" }
        }
        text += ". Set it to dwarf-with-dsym for the configuration whose symbols you upload, or run this phase for Release builds only."
        return text
    }
}
