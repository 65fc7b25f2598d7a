import Foundation

/// What the variable parts of the typing commands look like, and what stands in for them.
/// Only figures that change from run to run: pids, memory, timings, tap counts of timed runs.
extension Variable {
    static let pid = [Variable(#""pid" : \d+"#, #""pid" : <pid>"#), Variable(#"\bpid \d+"#, "pid <pid>")]
    static let footprintBytes = Variable(#""(peakFootprintBytes|finalFootprintBytes)" : \d+"#, #""$1" : <bytes>"#)
    static let milliseconds = Variable(#"\b\d+(\.\d+)? ms\b"#, "<n> ms")

    /// A timed stress run: its progress line, its counts and its memory; never its wording or its verdict.
    static let stress = [
        Variable(#"^\d+\.\d s · \d+ taps/s · \d+ switches · kills: none( · .+ \d+\.\d MiB)?$"#,
                 "<s> s · <n> taps/s · <n> switches · kills: none · <keyboard> <n> MiB"),
        Variable(#"^kbhost stress: \d+\.\d s, \d+ taps \(\d+ taps/s\), \d+ switches,"#,
                 "kbhost stress: <s> s, <n> taps (<n> taps/s), <n> switches,"),
        Variable(#"characters expected \d+, committed \d+"#, "characters expected <n>, committed <n>"),
        Variable(#"(peak footprint \S+): \d+\.\d MiB"#, "$1: <n> MiB"),
        // Which keyboards a one-second run reaches depends on the machine's load (one once ran
        // no switch at all): the lines of the keyboards' peaks are one line.
        Variable(#"(?:^  peak footprint \S+: <n> MiB\n)+"#, "  peak footprint <keyboard>: <n> MiB\n"),
        Variable(#"host private dirty: \d+\.\d MiB at start, \d+\.\d MiB at end"#, "host private dirty: <n> MiB at start, <n> MiB at end"),
        Variable(#""(committedCharacters|expectedCharacters|end|start|seconds|switches|taps|tapsPerSecond)" : [0-9.e+-]+"#,
                 #""$1" : <n>"#),
        Variable(#"("dev\.kbhost\.\w+" : )\d+"#, "$1<bytes>"),
    ]
    /// A profile: the keyboard's memory (the budgets and the verdicts stay).
    static let profile = [
        footprintBytes,
        Variable(#"peak footprint \d+\.\d+ MiB, at the end \d+\.\d+ MiB"#, "peak footprint <n> MiB, at the end <n> MiB"),
    ]
}

/// type, stress, profile, preview, demo and attach: the commands that run keyboards.
extension GoldenCase {
    static let typing: [GoldenCase] = [
        GoldenCase("type", "type through each sample keyboard: the text it leaves", [
            "kbhost type --keyboard dev.kbhost.Calculator 1 2 + 3 =",
            "kbhost type --keyboard Calculator 6 * 7 - 2 / 4 =",
            "kbhost type --keyboard dev.kbhost.Science shift H id:mode.1 ₂ id:mode.0 O",
            "kbhost type --keyboard dev.kbhost.Kana n i h o n g o space",
            "kbhost type --keyboard dev.kbhost.English t e h space",
            "kbhost type --keyboard dev.kbhost.English --autocorrection no t e h space",
            "kbhost type --keyboard 'number pad' --text 12 3 hold:delete:600 pause:100 4",
            "kbhost type --keyboard dev.kbhost.NumberPad --script $ROOT/taps 9",
        ], prepare: { w in try w.write("4 2\ndelete 7\n", to: "taps") }),
        GoldenCase("type-json", "type --json: text, selection, marked text, display, events, budget, failure", [
            "kbhost type --keyboard dev.kbhost.NumberPad --json 4 2 delete 7 globe",
            "kbhost type --keyboard dev.kbhost.Kana --json n i h o n g o space",
            "kbhost type --keyboard dev.kbhost.Calculator --json 1 2 +",
        ], variable: Variable.pid + [.footprintBytes]),
        GoldenCase("type-errors", "type's errors: no such key (5), no keyboard (3), a failing keyboard (4), a bad script (64)", [
            "kbhost type --keyboard dev.kbhost.NumberPad 4 nokey 5",
            "kbhost type --keyboard dev.kbhost.English h i space 1",
            "kbhost type --keyboard dev.example.Nope 1",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost type --keyboard dev.example.Crashy 1 boom x",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost type --keyboard dev.example.Crashy --json 1 boom",
            "kbhost type --keyboard dev.kbhost.NumberPad --script $ROOT/no-such-script",
            "kbhost type --keyboard dev.kbhost.NumberPad --budget 4 1",
            "kbhost type --keyboard dev.kbhost.NumberPad --keyboard-type sideways 1",
            "kbhost type 1",
        ], variable: Variable.pid + [.footprintBytes], prepare: { w in
            try w.bundle("dev.example.Crashy", library: "libFaultKeyboards.so", principal: "CrashOnKey", name: "Crashy")
        }),
        GoldenCase("type-over-budget", "a keyboard over its budget is killed; what it committed stays (4)", [
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost type --keyboard dev.example.Spike --budget 30 1 boom",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost type --keyboard dev.example.Spike --budget 30 --json 1 boom",
        ], variable: Variable.pid + [.footprintBytes, .milliseconds,
                                     Variable(#": \d+\.\d MiB at the kill \(\d+\.\d MiB over, peak \d+\.\d MiB\)"#,
                                              ": <n> MiB at the kill (<n> MiB over, peak <n> MiB)")],
           prepare: { w in
            try w.bundle("dev.example.Spike", library: "libFaultKeyboards.so", principal: "SpikeOnKey", name: "Spike")
        }),
        GoldenCase("stress", "a short stress run: its plain progress line, the report and the JSON (counts and memory vary)", [
            "kbhost stress --duration 1 --svg $ROOT/s.svg",
            "kbhost stress --duration 1 --svg $ROOT/s.svg --json --keyboard dev.kbhost.NumberPad",
        ], variable: Variable.stress),
        GoldenCase("stress-refused", "stress refuses before running: a keyboard it cannot count (7), an unwritable chart and bad values (64)", [
            "kbhost stress --keyboard dev.kbhost.Kana --duration 1 --svg $ROOT/k.svg",
            "kbhost stress --keyboard dev.kbhost.Calculator --duration 1 --svg $ROOT/c.svg",
            "kbhost stress --duration 1 --svg $ROOT/no-folder/s.svg",
            "kbhost stress --keyboard dev.example.Nope --duration 1",
            "kbhost stress --faults lightning --duration 1",
            "kbhost stress --budget 2 --duration 1",
        ]),
        GoldenCase("profile", "profile: the report against each device profile, and its JSON", [
            "kbhost profile dev.kbhost.Calculator --script $ROOT/taps --svg $ROOT/p.svg",
            "kbhost profile Calculator --script $ROOT/taps --svg $ROOT/p.svg --json",
            "kbhost profile dev.kbhost.Calculator --script $ROOT/taps --svg $ROOT/p.svg --fail-over older-phone",
        ], variable: Variable.profile, prepare: { w in try w.write("1 2 + 3 = hold:delete:600 pause:100 4\n", to: "taps") }),
        GoldenCase("profile-fail-over", "profile --fail-over: a keyboard that grows past older-phone's budget exits 1", [
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost profile dev.example.Leak --script $ROOT/taps --svg $ROOT/p.svg --fail-over tablet",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost profile dev.example.Leak --script $ROOT/taps --svg $ROOT/p.svg --fail-over older-phone",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost profile dev.example.Leak --script $ROOT/taps --svg $ROOT/p.svg --json",
        ], variable: Variable.profile, prepare: { w in  // 4 MiB a tap from about 1 MiB: over 48 MiB at tap 12, 3 MiB from either side
            try w.bundle("dev.example.Leak", library: "libFaultKeyboards.so", principal: "LeakOnKey", name: "Leak")
            try w.write(Array(repeating: "boom", count: 15).joined(separator: " "), to: "taps")
        }),
        GoldenCase("profile-errors", "profile's errors: no such key (5), an unreadable script and an unknown profile (64), no keyboard (3)", [
            "kbhost profile dev.kbhost.NumberPad --script $ROOT/taps --svg $ROOT/p.svg",
            "kbhost profile dev.kbhost.NumberPad --script $ROOT/no-such-script",
            "kbhost profile dev.kbhost.NumberPad --script $ROOT/taps --fail-over watch",
            "kbhost profile dev.kbhost.NumberPad --script $ROOT/taps --svg $ROOT/no-folder/p.svg",
            "kbhost profile dev.example.Nope --script $ROOT/taps",
        ], prepare: { w in try w.write("4 2 nokey", to: "taps") }),
        GoldenCase("preview-svg", "preview: the SVG a phone's keyboard would show, to stdout and to a file", [
            "kbhost preview dev.kbhost.NumberPad", "kbhost preview Calculator --after '1 2 +' --svg $ROOT/c.svg",
        ]),
        GoldenCase("preview-json", "preview --json: every key's frame, in portrait and landscape, after taps", [
            "kbhost preview dev.kbhost.NumberPad --json", "kbhost preview dev.kbhost.Calculator --json --landscape --after '1 +'",
        ]),
        GoldenCase("preview-errors", "preview's errors: no such key in --after (5), no keyboard (3), a bad value or a picture that cannot be written (64), no rsvg-convert for --png (1)", [
            "kbhost preview dev.kbhost.NumberPad --after 'nokey'", "kbhost preview dev.example.Nope",
            "kbhost preview dev.kbhost.NumberPad --scale 0 --png $ROOT/n.png",
            "PATH=$ROOT/empty kbhost preview dev.kbhost.NumberPad --png $ROOT/n.png",
            "kbhost preview dev.kbhost.NumberPad --svg $ROOT/nowhere/n.svg", "kbhost preview dev.kbhost.NumberPad --png $ROOT",
        ]),
        GoldenCase("demo-tour", "the demo's scripted tour, without a terminal (pids and times vary)", [
            "kbhost demo --tour",
        ], variable: Variable.pid + [.milliseconds]),
        GoldenCase("attach-no-terminal", "attach and serve --stop where they cannot act (7)", [
            "kbhost attach", "kbhost attach --secure", "kbhost serve --stop",
        ]),
    ]
}
