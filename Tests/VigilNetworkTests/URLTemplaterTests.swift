import Testing
import VigilCore

@Suite("URL templates")
struct URLTemplaterTests {
    @Test("ids are folded, query, fragment and user info dropped, default ports removed", arguments: [
        ("https://api.example.com/users/42", "https://api.example.com/users/:id"),
        ("https://api.example.com/users/42/", "https://api.example.com/users/:id/"),
        ("https://API.Example.com:443/users/42?token=abc#top", "https://api.example.com/users/:id"),
        ("http://user:secret@api.example.com:80/a", "http://api.example.com/a"),
        ("http://127.0.0.1:8080/orders/-7/items/3.5", "http://127.0.0.1:8080/orders/:id/items/:id"),
        ("https://x.io/u/0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01/avatar", "https://x.io/u/:id/avatar"),
        ("https://x.io/u/0f4b5c4e-7d33-4c4a-9b8e-2f7d4e1c0a01", "https://x.io/u/:id"),
        ("https://x.io/commits/9fceb02d0ae598e95dc970b74767f19372d61af8", "https://x.io/commits/:id"),
        ("https://x.io/objects/deadbeefcafe", "https://x.io/objects/deadbeefcafe"),
        ("https://x.io/share/aGVsbG8gd29ybGQgdGhpcyBpcw2", "https://x.io/share/:id"),
        ("https://x.io/posts/getting-started-with-swift-concurrency", "https://x.io/posts/getting-started-with-swift-concurrency"),
        ("https://x.io/images/1234.png", "https://x.io/images/:id.png"),
        ("https://x.io/index.html", "https://x.io/index.html"),
        ("https://x.io/v1/search", "https://x.io/v1/search"),
        ("https://x.io", "https://x.io/"),
        ("https://x.io?q=1", "https://x.io/"),
        ("http://[::1]:9000/items/5", "http://[::1]:9000/items/:id"),
        ("https://x.io/a//b", "https://x.io/a/b"),
    ])
    func defaults(url: String, expected: String) {
        #expect(URLTemplater().template(for: url).template == expected)
    }

    @Test("the host is reported lowercased and without port or user info")
    func host() {
        #expect(URLTemplater().template(for: "https://me@API.example.COM:8443/x").host == "api.example.com")
        #expect(URLTemplater().template(for: "http://[::1]:9000/").host == "[::1]")
    }

    @Test("each folding kind folds its own segments and can be switched off", arguments: SegmentFolding.allCases)
    func foldingSwitch(kind: SegmentFolding) {
        let samples: [SegmentFolding: String] = [
            .numeric: "12345", .uuid: "0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01",
            .hex: "9fceb02d0ae598e95dc970b74767f19372d61af8", .token: "aGVsbG8gd29ybGQgdGhpcyBpcw2",
        ]
        let sample = samples[kind]!
        var only = URLTemplateRules()
        only.folding = [kind]
        #expect(URLTemplater(rules: only).template(for: "https://x.io/r/\(sample)").template == "https://x.io/r/:id")
        #expect(URLTemplater(rules: only).template(for: "https://x.io/r/search").template == "https://x.io/r/search")
        // Without it (and with tokens made too long to catch UUIDs and hashes), the segment stays.
        var without = URLTemplateRules()
        without.folding.remove(kind)
        without.minimumTokenLength = 64
        #expect(URLTemplater(rules: without).template(for: "https://x.io/r/\(sample)").template == "https://x.io/r/\(sample)")
    }

    @Test("explicit routes win over the heuristics, limited to their host when one is given")
    func routes() {
        var rules = URLTemplateRules()
        rules.routes = ["api.example.com/users/:userId/posts/:postId", "/files/:name", "/static/app.js"]
        let templater = URLTemplater(rules: rules)
        #expect(templater.template(for: "https://api.example.com/users/alice/posts/9").template
            == "https://api.example.com/users/:userId/posts/:postId")
        #expect(templater.template(for: "https://other.example.com/users/alice/posts/9").template
            == "https://other.example.com/users/alice/posts/:id")
        #expect(templater.template(for: "https://cdn.example.com/files/report-final.pdf").template
            == "https://cdn.example.com/files/:name")
        #expect(templater.template(for: "https://cdn.example.com/files/a/b").template
            == "https://cdn.example.com/files/a/b")
    }

    @Test("malformed routes are reported by validation and skipped by the templater")
    func malformedRoutes() {
        var rules = URLTemplateRules()
        rules.routes = ["users/:id", "/ok/:id", "/q?x=1"]
        #expect(rules.problems(prefix: "").map(\.value) == ["users/:id", "/q?x=1"])
        #expect(URLTemplater(rules: rules).template(for: "https://x.io/ok/abc").template == "https://x.io/ok/:id")
    }

    @Test("the query can keep its names or its folded values; the fragment can be kept")
    func queryModes() {
        var rules = URLTemplateRules()
        rules.query = .names
        #expect(URLTemplater(rules: rules).template(for: "https://x.io/s?page=2&sort=price&flag").template
            == "https://x.io/s?page=:id&sort=:id&flag")
        rules.query = .foldedValues
        rules.keepFragment = true
        #expect(URLTemplater(rules: rules).template(for: "https://x.io/s?page=2&sort=price#results").template
            == "https://x.io/s?page=:id&sort=price#results")
    }

    @Test("placeholder, kept segments and the segment limit are configurable")
    func otherRules() {
        var rules = URLTemplateRules()
        rules.placeholder = "{id}"
        rules.keptSegments = ["2"]
        rules.maximumSegments = 3
        let templater = URLTemplater(rules: rules)
        #expect(templater.template(for: "https://x.io/api/2/users/7/posts/8").template == "https://x.io/api/2/users/…")
        #expect(templater.template(for: "https://x.io/api/2/users").template == "https://x.io/api/2/users")
        #expect(templater.template(for: "https://x.io/api/3").template == "https://x.io/api/{id}")
    }

    @Test("out-of-range rules are clamped and reported")
    func clamping() {
        var rules = URLTemplateRules()
        rules.minimumHexLength = 1
        rules.placeholder = "a/b"
        rules.maximumSegments = 0
        #expect(rules.problems(prefix: "t.").map(\.field).sorted() == ["t.maximumSegments", "t.minimumHexLength", "t.placeholder"])
        let clamped = rules.clamped()
        #expect(clamped.minimumHexLength == 8)
        #expect(clamped.placeholder == ":id")
        #expect(clamped.maximumSegments == 1)
    }

    @Test("arbitrary byte strings never trap and always give a template starting with the origin")
    func hostileInput() {
        var generator = SeededGenerator(seed: 10)
        let alphabet = Array("/:?#@[]%.-_=+&abcXYZ0129 \u{0}é🙂")
        let templater = URLTemplater()
        for _ in 0..<2000 {
            let length = Int(generator.next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let parts = URLParts(text)
            let result = templater.template(parts)
            #expect(result.hasPrefix(parts.origin))
        }
    }
}
