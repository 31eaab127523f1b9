import Foundation
import VigilCore

/// Writes a large freestanding C program for the symbols benchmark: `files` translation units
/// of `functionsPerFile` functions each, with header-defined inline helpers and static inline
/// functions nested three deep (so the DWARF is full of inlined subroutines), loops, switches,
/// structs and calls across files. Deterministic for a seed.
struct SymbolsProgramGenerator {
    var files: Int
    var functionsPerFile: Int
    var seed: UInt64

    /// Writes `gen_NNN.c`, `gen_common.h` and `gen_main.c` into `directory`; returns the C files.
    func write(to directory: URL) throws -> [URL] {
        var generator = SeededGenerator(seed: seed)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var header = """
            #ifndef GEN_COMMON_H
            #define GEN_COMMON_H
            struct gen_point { int x; int y; long weight; };
            struct gen_state { struct gen_point points[4]; unsigned flags; int depth; };
            static inline __attribute__((always_inline)) int gen_clamp(int v, int lo, int hi) {
                if (v < lo) return lo;
                if (v > hi) return hi;
                return v;
            }
            static inline __attribute__((always_inline)) int gen_mix(int a, int b) {
                int m = a * 31 + (b ^ (a >> 3));
                return gen_clamp(m, -1000000, 1000000);
            }
            static inline int gen_fold(const int *values, int count) {
                int acc = 0;
                for (int i = 0; i < count; i++) acc = gen_mix(acc, values[i]);
                return acc;
            }

            """
        for file in 0..<files {
            for function in 0..<functionsPerFile {
                header += "int gen_f\(file)_\(function)(int seed, struct gen_state *state);\n"
            }
        }
        header += "#endif\n"
        try header.write(to: directory.appendingPathComponent("gen_common.h"), atomically: true, encoding: .utf8)

        var sources: [URL] = []
        for file in 0..<files {
            var text = "#include \"gen_common.h\"\n\nstatic int gen_table_\(file)[8] = {\(Array(0..<8).map { _ in String(generator.next() % 97) }.joined(separator: ", "))};\n\n"
            for function in 0..<functionsPerFile {
                let name = "f\(file)_\(function)"
                let a = generator.next() % 13 + 2, b = generator.next() % 7 + 1
                text += """
                    static inline int gen_leaf_\(name)(int x, struct gen_state *state) {
                        int total = x;
                        for (int i = 0; i < \(a); i++) {
                            total = gen_mix(total, state->points[i & 3].x + i);
                            if (total & \(b)) state->flags ^= (unsigned)total;
                        }
                        return total;
                    }

                    static inline int gen_middle_\(name)(int x, struct gen_state *state) {
                        int r = gen_leaf_\(name)(x, state);
                        switch (r & 3) {
                        case 0: r += gen_fold(gen_table_\(file), 8); break;
                        case 1: r ^= state->points[1].y; break;
                        case 2: r = gen_leaf_\(name)(r, state) * \(b); break;
                        default: state->depth++; break;
                        }
                        return r;
                    }

                    int gen_\(name)(int seed, struct gen_state *state) {
                        struct gen_point local = { seed, seed * \(a), (long)seed << 3 };
                        state->points[seed & 3] = local;
                        int value = gen_middle_\(name)(seed, state);
                        if (value > \(a * 1000)) value = gen_middle_\(name)(value - seed, state);

                    """
                // Calls to other functions, some across files.
                for _ in 0..<2 {
                    let targetFile = Int(generator.next() % UInt64(files))
                    let targetFunction = Int(generator.next() % UInt64(functionsPerFile))
                    if targetFile > file || (targetFile == file && targetFunction > function) {
                        text += "    if (state->depth < 3 && (value & 15) == \(generator.next() % 16)) { state->depth++; value += gen_f\(targetFile)_\(targetFunction)(value, state); state->depth--; }\n"
                    }
                }
                text += "    return gen_clamp(value, -\(a * 100000), \(a * 100000));\n}\n\n"
            }
            let url = directory.appendingPathComponent(String(format: "gen_%03d.c", file))
            try text.write(to: url, atomically: true, encoding: .utf8)
            sources.append(url)
        }
        var main = "#include \"gen_common.h\"\nvolatile int gen_sink;\nint main(void) {\n    struct gen_state state = {0};\n    int total = gen_sink;\n"
        for file in 0..<files { main += "    total += gen_f\(file)_0(total, &state);\n" }
        main += "    gen_sink = total;\n    return total & 0xff;\n}\n"
        let mainURL = directory.appendingPathComponent("gen_main.c")
        try main.write(to: mainURL, atomically: true, encoding: .utf8)
        sources.append(mainURL)
        return sources
    }
}
