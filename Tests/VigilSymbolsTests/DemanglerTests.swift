import Foundation
import Testing
import VigilTestSupport
@testable import VigilSymbols

@Suite("Demangling: Swift through swift_demangle, C++ through __cxa_demangle, simplified names")
struct DemanglerTests {
    static let swiftDemangle = "/opt/swift/usr/bin/swift-demangle"

    /// Names from the fixture and typical app code: methods, initializers, accessors, closures,
    /// specializations, thunks, witnesses.
    static let swiftNames = [
        "$s4main3FooC3bar1x1yySi_SStF", "$sSa6appendyyxnF", "$s4Shop4CartC3add_5countyAA4ItemV_SitFZ",
        "$s4Shop4CartCACycfc", "$s4Shop4CartC5itemsSayAA4ItemVGvM", "$s4Shop4CartC3addyyAA4ItemVFyycfU_",
        "$s4Shop4CartC3addyyAA4ItemVFyycfU_TA", "$s4Shop4CartC3addyyAA4ItemVFTo", "$s4Shop4CartCfD",
        "$s4Shop7ServiceP5fetchyyYaKF", "$s12SwiftFixture11AccumulatorC3addySiSaySiGF",
        "$s12SwiftFixture5ShapeO4areaSivg", "$s12SwiftFixture9transformySaySiGAD_S2iXEtF",
        "$s12SwiftFixture7DoublerVAA6ScorerA2aDP5scoreyS2iFTW", "$s12SwiftFixture11FixtureMainV4mainyyFZ",
        "$s12SwiftFixture11AccumulatorC6scorerACyxGx_tcfC", "$s10Foundation4DataV15withUnsafeBytesyxxSWKXEKlF",
    ]

    @Test("Swift names demangle exactly as swift-demangle prints them")
    func swiftFullNames() throws {
        #expect(Demangler.canDemangleSwift)
        // The runtime's demangler prints no sugar ([A] is Swift.Array<A>).
        let expected = try ToolOutput.run(Self.swiftDemangle, ["--compact", "--no-sugar"], input: Self.swiftNames.joined(separator: "\n"))
        let lines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (name, line) in zip(Self.swiftNames, lines) {
            #expect(Demangler.demangle(name) == line, "\(name)")
            #expect(Demangler.language(of: name) == .swift)
        }
    }

    @Test("simplified Swift names match swift-demangle --simplified for app-level symbols")
    func swiftSimplifiedNames() throws {
        let expected = try ToolOutput.run(Self.swiftDemangle, ["--compact", "--simplified"], input: Self.swiftNames.joined(separator: "\n"))
        let lines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (name, line) in zip(Self.swiftNames, lines) {
            #expect(Demangler.simplify(Demangler.demangle(name), mangled: name) == line, "\(name)")
        }
    }

    @Test("on the Swift runtime's own functions, simplified names agree with swift-demangle --simplified")
    func swiftRuntimeCorpus() throws {
        let library = "/opt/swift/usr/lib/swift/linux/libswiftCore.so"
        guard FileManager.default.fileExists(atPath: library) else {
            throw TestSupportError("\(library) is missing: the test reads the Swift runtime's symbols; install the toolchain at /opt/swift")
        }
        let listing = try ToolOutput.run("/usr/bin/llvm-nm-15", ["--defined-only", "--extern-only", library])
        // Functions (text symbols): what stack frames name.
        var names: [String] = []
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T" || fields[1] == "t", fields[2].hasPrefix("$s") else { continue }
            names.append(String(fields[2]))
        }
        #expect(names.count > 1000)
        let sample = stride(from: 0, to: names.count, by: max(names.count / 3000, 1)).map { names[$0] }
        let full = try ToolOutput.run(Self.swiftDemangle, ["--compact", "--no-sugar"], input: sample.joined(separator: "\n"))
        let simplified = try ToolOutput.run(Self.swiftDemangle, ["--compact", "--simplified"], input: sample.joined(separator: "\n"))
        let fullLines = full.split(separator: "\n", omittingEmptySubsequences: false)
        let simplifiedLines = simplified.split(separator: "\n", omittingEmptySubsequences: false)
        var demangledAgree = 0, simplifiedAgree = 0
        var disagreements: [String] = []
        for (index, name) in sample.enumerated() where index < fullLines.count && index < simplifiedLines.count {
            let demangled = Demangler.demangle(name)
            if demangled == fullLines[index] { demangledAgree += 1 }
            let short = Demangler.simplify(demangled, mangled: name)
            let shown = Int(ProcessInfo.processInfo.environment["VIGIL_SHOW_DISAGREEMENTS"] ?? "") ?? 10
            if short == simplifiedLines[index] { simplifiedAgree += 1 } else if disagreements.count < shown {
                disagreements.append("\(simplifiedLines[index])  ≠  \(short)")
            }
        }
        #expect(demangledAgree == sample.count, "the runtime's demangler and swift-demangle disagree")
        let ratio = Double(simplifiedAgree) / Double(sample.count)
        print("simplified Swift names: \(simplifiedAgree) of \(sample.count) runtime symbols equal swift-demangle --simplified")
        if ProcessInfo.processInfo.environment["VIGIL_SHOW_DISAGREEMENTS"] != nil { print(disagreements.joined(separator: "\n")) }
        #expect(ratio >= 0.9, "only \(simplifiedAgree)/\(sample.count) agree; e.g.\n\(disagreements.joined(separator: "\n"))")
    }

    @Test("C++ names demangle through __cxa_demangle and simplify to the qualified name", arguments: [
        ("_ZN7fixture8geometry4walkEi", "fixture::geometry::walk(int)", "fixture::geometry::walk"),
        ("_ZNK7fixture8geometry5Point9manhattanEv", "fixture::geometry::Point::manhattan() const", "fixture::geometry::Point::manhattan"),
        ("_ZN12_GLOBAL__N_116anonymous_helperEi", "(anonymous namespace)::anonymous_helper(int)", "(anonymous namespace)::anonymous_helper"),
        ("_ZZ9cpp_entryENK3$_0clEii", "cpp_entry::$_0::operator()(int, int) const", "cpp_entry::$_0::operator()"),
        ("_ZN7fixture8geometry4RingIiLi8EE4pushEi", "fixture::geometry::Ring<int, 8>::push(int)", "fixture::geometry::Ring<int, 8>::push"),
        ("_Znwm", "operator new(unsigned long)", "operator new"),
        ("__ZN2ns1fEv", "ns::f()", "ns::f"),
    ])
    func cxxNames(_ mangled: String, _ full: String, _ short: String) {
        #expect(Demangler.language(of: mangled) == .cplusplus)
        #expect(Demangler.demangle(mangled) == full)
        #expect(Demangler.simplify(full, mangled: mangled) == short)
    }

    @Test("plain C and Objective-C names are left alone", arguments: ["main", "-[AppDelegate application:didFinishLaunchingWithOptions:]", "_start", "$not_swift"])
    func plainNames(_ name: String) {
        #expect(Demangler.language(of: name) == nil)
        #expect(Demangler.demangle(name) == name)
        #expect(Demangler.simplify(name, mangled: name) == name)
    }

    @Test("an invalid mangling comes back unchanged")
    func invalidMangling() {
        #expect(Demangler.demangle("$s$$$garbage") == "$s$$$garbage")
        #expect(Demangler.demangle("_Zxyz") == "_Zxyz")
    }
}
