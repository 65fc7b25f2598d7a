import Foundation

/// The machine and the author's tools: doctor, protection, sdk, new, ibus, completions, help,
/// --version, and usage errors.
extension Variable {
    /// The kernel's Landlock ABI, as doctor names it (not the ABI a mechanism needs, which is fixed).
    static let landlockABI = Variable(#"Landlock filesystem rules, Landlock ABI \d+"#, "Landlock filesystem rules, Landlock ABI <n>")
}

extension GoldenCase {
    /// Cases whose output depends on what this kernel offers (doctor, protection): run only on a
    /// machine with every protection, as the files were written on.
    static let kernel: [GoldenCase] = [
        GoldenCase("doctor", "doctor on a machine with every protection, as text and JSON", [
            "kbhost doctor", "kbhost doctor --json",
        ], variable: [.landlockABI]),
        GoldenCase("doctor-missing", "doctor when a required protection is missing (1), and the way to run without it", [
            "KBHOST_SANDBOX_PRETEND_MISSING=landlock kbhost doctor",
            "KBHOST_SANDBOX_PRETEND_MISSING=landlock kbhost protection dev.kbhost.NumberPad allow landlock",
            "KBHOST_SANDBOX_PRETEND_MISSING=landlock kbhost type --keyboard dev.kbhost.NumberPad 4 2",
        ], variable: [.landlockABI]),
        GoldenCase("protection", "protection: the kernel's mechanisms, a keyboard's exceptions, allowed and required again", [
            "kbhost protection", "kbhost protection --json", "kbhost protection dev.kbhost.Calculator",
            "kbhost protection dev.kbhost.Calculator --json", "kbhost protection dev.kbhost.Calculator allow landlock-scope seccomp",
            "kbhost protection dev.kbhost.Calculator", "kbhost protection dev.kbhost.Calculator --json",
            "kbhost protection dev.kbhost.Calculator require seccomp", "kbhost protection dev.kbhost.Calculator",
            "kbhost protection dev.kbhost.Calculator allow teleportation", "kbhost protection dev.example.Nope",
        ], variable: [Variable(#"Landlock ABI: \d+"#, "Landlock ABI: <n>"), Variable(#""landlockABI" : \d+"#, #""landlockABI" : <n>"#)]),
    ]

    static let tools: [GoldenCase] = [
        GoldenCase("version-and-help", "--version, the overview, help of a command, and help of no command (64)", [
            "kbhost --version", "kbhost --help", "kbhost help type", "kbhost type --help", "kbhost help nonexist", "kbhost",
        ]),
        GoldenCase("help-every-command", "every command's help, as `kbhost help COMMAND` prints it", [
            "list", "current", "enable", "disable", "order", "set", "next", "access", "defaults", "pasteboard", "replacements",
            "protection", "globe-key", "budget", "reset", "validate", "install", "uninstall", "new", "dev", "sdk", "doctor",
            "type", "stress", "profile", "preview", "serve", "attach", "ibus", "ibus install", "ibus uninstall", "ibus engines",
            "demo",
        ].map { "kbhost help " + $0 }),
        GoldenCase("usage-errors", "usage errors: an unknown command, option or value, a missing argument (64)", [
            "kbhost lsit", "kbhost list --nope", "kbhost enable", "kbhost globe-key both", "kbhost stress --duration soon",
            "kbhost type --keyboard dev.kbhost.NumberPad --autocapitalization loud 1", "kbhost new 9lives --path $ROOT/x",
        ]),
        GoldenCase("sdk", "sdk: where a keyboard's build finds the SDK", [
            "kbhost sdk --path", "kbhost sdk --cflags", "kbhost sdk --products", "kbhost sdk --pkg-config", "kbhost sdk",
        ]),
        GoldenCase("new", "new: a Swift and a C keyboard scaffolded; a taken folder and a bad name refused", [
            "kbhost new Acme", "kbhost new my_keys --language c --path $ROOT/c-keys", "kbhost new Acme",
            "kbhost new Ünïcödé --identifier com.example.unicode --path $ROOT/u", "kbhost new 'two words'",
        ]),
        GoldenCase("dev", "dev: a C keyboard from new, built with make, installed and typed through; again without building", [
            "kbhost new Clav --language c --path $ROOT/clav", "kbhost dev --path $ROOT/clav h i",
            "kbhost dev --path $ROOT/clav --no-build h i q", "kbhost list --all --ids", "kbhost dev --path $ROOT/nothing-here",
        ]),
        GoldenCase("ibus", "ibus: the engines offered (XML for IBus, JSON), install and uninstall for this user", [
            "kbhost ibus engines --xml", "kbhost enable dev.kbhost.Calculator dev.kbhost.Kana", "kbhost ibus engines --xml",
            "kbhost ibus engines --json", "kbhost ibus install", "kbhost ibus install --json --no-environment",
            "kbhost ibus uninstall", "kbhost ibus uninstall",
        ]),
        GoldenCase("completions", "shell completion: the bash script, and keyboard identifiers completed by kbhost itself", [
            "kbhost --generate-completion-script bash",
            "kbhost ---completion set -- positional@0 2 12 kbhost set dev.kbhost.N",
            "kbhost ---completion type -- --keyboard 3 0 kbhost type --keyboard ''",
            "KBHOST_KEYBOARDS=$ROOT/bundles kbhost ---completion enable -- positional@0 2 4 kbhost enable com.",
        ], prepare: { w in
            try w.bundle("com.example.Pad", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController", name: "Pad")
        }),
    ]
}
