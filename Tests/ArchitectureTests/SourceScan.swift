/// Swift source read as text, for the rules on what code may call: comments and string
/// literals blanked (their newlines kept, so lines still count), then identifiers found.
enum SourceScan {
    /// The calls only KBSystem makes (STYLE.md, "System calls"): a Swift file elsewhere calls
    /// `Sys` instead. The sandbox's calls are C, in CKBSandbox, which these rules do not read.
    static let systemCalls: Set<String> = [
        "kill", "waitpid", "poll", "read", "write", "stat", "lstat", "fstat", "chmod", "fchmod",
        "dlopen", "dlsym", "getrlimit", "setrlimit", "setenv", "unsetenv", "realpath", "access", "shutdown",
    ]

    /// What the core may not use: clocks, files, the process's environment and arguments.
    static let worldAPIs: Set<String> = [
        "Date", "ContinuousClock", "SuspendingClock", "DispatchTime", "clock_gettime", "gettimeofday",
        "FileManager", "FileHandle", "fopen", "readLine", "ProcessInfo", "CommandLine", "getenv",
    ]

    /// `text` with every comment and string literal's characters but newlines made spaces.
    static func code(_ text: String) -> [UInt8] {
        let s = Array(text.utf8)
        var out = s
        var i = 0
        func blank(_ range: Range<Int>) { for j in range where out[j] != 10 { out[j] = 32 } }
        func starts(_ token: String, at j: Int) -> Bool { s[j...].starts(with: token.utf8) }
        while i < s.count {
            if starts("//", at: i) {
                let end = s[i...].firstIndex(of: 10) ?? s.count
                blank(i..<end); i = end
            } else if starts("/*", at: i) {
                var depth = 0, j = i
                repeat {
                    if starts("/*", at: j) { depth += 1; j += 2 } else if starts("*/", at: j) { depth -= 1; j += 2 } else { j += 1 }
                } while depth > 0 && j < s.count
                blank(i..<j); i = j
            } else if s[i] == UInt8(ascii: "\"") || (s[i] == UInt8(ascii: "#") && i + 1 < s.count && s[i + 1] == UInt8(ascii: "\"")) {
                let hashes = s[i] == UInt8(ascii: "#") ? 1 : 0
                let quote = starts("\"\"\"", at: i + hashes) ? "\"\"\"" : "\""
                let close = quote + String(repeating: "#", count: hashes)
                var j = i + hashes + quote.utf8.count
                while j < s.count && !starts(close, at: j) && !(quote == "\"" && s[j] == 10) {
                    j += (s[j] == UInt8(ascii: "\\") && hashes == 0) ? 2 : 1
                }
                j = min(j + close.utf8.count, s.count)
                blank(i..<j); i = j
            } else {
                i += 1
            }
        }
        return out
    }

    /// Each identifier of `code` with its line and its byte range.
    static func identifiers(_ code: [UInt8]) -> [(name: String, line: Int, range: Range<Int>)] {
        func isStart(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
        func isPart(_ b: UInt8) -> Bool { isStart(b) || (b >= 48 && b <= 57) }
        var found: [(String, Int, Range<Int>)] = []
        var line = 1, i = 0
        while i < code.count {
            if code[i] == 10 { line += 1; i += 1; continue }
            guard isStart(code[i]), i == 0 || !isPart(code[i - 1]) else { i += 1; continue }
            var j = i
            while j < code.count && isPart(code[j]) { j += 1 }
            found.append((String(decoding: code[i..<j], as: UTF8.self), line, i..<j))
            i = j
        }
        return found
    }

    /// The raw calls of `names` in a Swift file: `Glibc.NAME(…)` always; `NAME(…)` with a first
    /// argument that has no label, unless the file declares a `func NAME` of its own. A method
    /// call (`x.read()`), a declaration (`func write`, `case kill`) and a labelled call
    /// (`write(to: &w)`, which no C function takes) are not raw calls.
    static func rawCalls(of names: Set<String>, in text: String) -> [(line: Int, call: String)] {
        let code = code(text)
        let words = identifiers(code)
        let declared = Set(zip(words, words.dropFirst()).filter { $0.0.name == "func" }.map(\.1.name))
        func skipSpaces(_ j: Int, by step: Int) -> Int {
            var j = j
            while j >= 0 && j < code.count && (code[j] == 32 || code[j] == 9) { j += step }
            return j
        }
        var calls: [(Int, String)] = []
        for (index, word) in words.enumerated() where names.contains(word.name) {
            let open = skipSpaces(word.range.upperBound, by: 1)
            guard open < code.count, code[open] == UInt8(ascii: "(") else { continue }
            let first = skipSpaces(open + 1, by: 1)
            guard first < code.count, code[first] != UInt8(ascii: ")") else { continue }  // C calls take arguments
            if let label = words.first(where: { $0.range.lowerBound == first }) {
                let colon = skipSpaces(label.range.upperBound, by: 1)
                if colon < code.count && code[colon] == UInt8(ascii: ":") { continue }
            }
            let before = skipSpaces(word.range.lowerBound - 1, by: -1)
            let previous = index > 0 ? words[index - 1] : nil
            if before >= 0 && code[before] == UInt8(ascii: ".") {
                if previous?.range.upperBound == before, previous?.name == "Glibc" { calls.append((word.line, word.name)) }
                continue
            }
            if let previous, ["func", "case", "var", "let"].contains(previous.name), previous.range.upperBound <= before + 1 { continue }
            if declared.contains(word.name) { continue }
            calls.append((word.line, word.name))
        }
        return calls
    }

    /// The identifiers of `names` that `text` uses outside its comments and strings.
    static func uses(of names: Set<String>, in text: String) -> [(line: Int, name: String)] {
        identifiers(code(text)).filter { names.contains($0.name) }.map { ($0.line, $0.name) }
    }
}
