import Foundation

/// The input manager's commands, as README's table has them: keyboards, order, current, access,
/// budget, globe key, shared data, install, and their errors.
extension GoldenCase {
    static let manage: [GoldenCase] = [
        GoldenCase("list", "list on fresh settings: the table, identifiers only, JSON, every known keyboard", [
            "kbhost list", "kbhost list --ids", "kbhost list --json", "kbhost list --all", "kbhost list --all --ids",
        ]),
        GoldenCase("list-failures", "failures recorded by attach or the IBus engine, in the table and the JSON; a set-aside keyboard", [
            "kbhost list", "kbhost list --json", "kbhost next", "kbhost next",
        ], prepare: { w in
            try w.write("""
                {"version": 1, "current": "dev.kbhost.System", "enabled": ["dev.kbhost.System", "dev.kbhost.Calculator", "dev.kbhost.Kana"],
                 "failures": {"dev.kbhost.Calculator": {"count": 1, "lastReason": "ended by signal SIGSEGV", "lastFailure": 1795000000, "setAside": false},
                              "dev.kbhost.Kana": {"count": 3, "lastReason": "did not answer within 2500 ms", "lastFailure": 1795000000, "setAside": true}},
                 "fullAccess": [], "memoryBudget": 50331648, "deviceDrawsGlobeKey": false, "textReplacements": {}, "allowedMissingProtections": {}}
                """, to: "home/settings.json")
        }),
        GoldenCase("enable-set-next-current", "enable by display name, set, current in its three forms, the globe key", [
            "kbhost enable Calculator science", "kbhost list", "kbhost set calculator", "kbhost current",
            "kbhost current --verbose", "kbhost current --json", "kbhost next", "kbhost next --verbose", "kbhost next --json",
            "kbhost set dev.kbhost.Science --verbose", "kbhost set system --json",
        ]),
        GoldenCase("next-skips-for-the-field", "next skips keyboards the focused field may not use", [
            "kbhost enable dev.kbhost.Kana dev.kbhost.Calculator", "kbhost next --keyboard-type url", "kbhost next --secure",
            "kbhost next --keyboard-type phonePad", "kbhost next --no-third-party", "kbhost next",
        ]),
        GoldenCase("did-you-mean", "mistyped keyboards and commands get the closest names", [
            "kbhost set calculater", "kbhost enable dev.kbhost.Sciense", "kbhost type --keyboard numberpad 4",
            "kbhost lsit", "kbhost enabel Calculator", "kbhost profile kanna --script $ROOT/none",
            "kbhost ibus instal", "kbhost help ibus engine", "kbhost defaults group.dev.kbhost.Hostle read",
            "kbhost version",
        ]),
        GoldenCase("display-name-shared", "a display name two keyboards have is refused with both identifiers (3)", [
            "KBHOST_KEYBOARDS=$ROOT/more kbhost enable calculator",
            "KBHOST_KEYBOARDS=$ROOT/more kbhost enable dev.example.Calculator",
            "KBHOST_KEYBOARDS=$ROOT/more kbhost list",
        ], prepare: { w in
            try w.bundle("dev.example.Calculator", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                         name: "Calculator", in: "more")
        }),
        GoldenCase("enable-disable-order", "enable, order, disable, and their refusals (3, 6, 7)", [
            "kbhost enable dev.kbhost.Calculator dev.kbhost.Science dev.kbhost.Kana",
            "kbhost order dev.kbhost.Kana dev.kbhost.Science", "kbhost list",
            "kbhost order dev.kbhost.English", "kbhost disable dev.kbhost.Science dev.kbhost.Kana", "kbhost list",
            "kbhost disable dev.kbhost.Kana", "kbhost disable dev.example.Nope", "kbhost enable dev.example.Nope",
            "kbhost disable dev.kbhost.Calculator", "kbhost disable dev.kbhost.System", "kbhost set dev.kbhost.Kana",
        ]),
        GoldenCase("access", "full access: granted, shown, revoked; refused where the manifest does not ask (7)", [
            "kbhost access dev.kbhost.Hostile on", "kbhost list --all", "kbhost access dev.kbhost.Hostile off",
            "kbhost access dev.kbhost.Calculator on", "kbhost access dev.kbhost.Hostile maybe", "kbhost access dev.example.Nope on",
        ]),
        GoldenCase("budget", "the memory budget: shown, set in MiB or by profile, its range enforced (64)", [
            "kbhost budget", "kbhost budget 64", "kbhost budget", "kbhost budget recent-phone", "kbhost budget",
            "kbhost budget 7", "kbhost budget 513", "kbhost budget 100000", "kbhost budget lots", "kbhost budget 512",
        ]),
        GoldenCase("globe-key", "globe-key read back and set", [
            "kbhost globe-key", "kbhost globe-key device", "kbhost globe-key", "kbhost globe-key keyboard",
            "kbhost globe-key sideways",
        ]),
        GoldenCase("reset", "reset: back to the system keyboard alone, grants gone", [
            "kbhost enable dev.kbhost.Calculator dev.kbhost.Hostile", "kbhost set dev.kbhost.Calculator",
            "kbhost access dev.kbhost.Hostile on", "kbhost reset", "kbhost list --all",
        ]),
        GoldenCase("settings-corrupt", "an unreadable settings file stops every command (8) until reset", [
            "kbhost current", "kbhost list", "kbhost enable dev.kbhost.Calculator", "kbhost reset", "kbhost current",
        ], prepare: { w in try w.write("not json", to: "home/settings.json") }),
        GoldenCase("settings-newer", "settings from a newer kbhost are refused, never replaced (8)", [
            "kbhost current", "kbhost budget 64",
        ], prepare: { w in try w.write(#"{"version": 999}"#, to: "home/settings.json") }),
        GoldenCase("defaults", "an App Group's defaults: every type written, read as text and typed JSON; a missing key (5)", [
            "kbhost defaults group.com.example.kb write theme dark", "kbhost defaults group.com.example.kb write size 14 --type int",
            "kbhost defaults group.com.example.kb write ratio 1.5 --type double",
            "kbhost defaults group.com.example.kb write sound yes --type bool",
            "kbhost defaults group.com.example.kb write blob AAH/ --type data",
            "kbhost defaults group.com.example.kb read", "kbhost defaults group.com.example.kb read --json",
            "kbhost defaults group.com.example.kb read size", "kbhost defaults group.com.example.kb read size --json",
            "kbhost defaults group.com.example.kb delete theme", "kbhost defaults group.com.example.kb read theme",
            "kbhost defaults group.com.example.kb delete theme", "kbhost defaults group.com.example.kb write size big --type int",
            "kbhost defaults group.com.example.kb write", "kbhost defaults group.com.example.kb rename size",
        ]),
        GoldenCase("shared-data-unreadable", "a group's defaults file that is not one, and a folder where the pasteboard is (8)", [
            "kbhost defaults group.com.example.kb read", "kbhost defaults group.com.example.kb write size 1 --type int",
            "kbhost pasteboard", "kbhost pasteboard write x",
        ], variable: [Variable(#"\.pasteboard\.\d+\.\d+\.tmp"#, ".pasteboard.<pid>.<n>.tmp")], prepare: { w in
            try w.write("garbage", to: "home/Containers/Groups/group.com.example.kb/Library/Preferences/group.com.example.kb.kbdefaults")
            try w.write("", to: "home/pasteboard/in-the-way")
        }),
        GoldenCase("pasteboard", "the general pasteboard: empty, written, read, cleared", [
            "kbhost pasteboard", "kbhost pasteboard write 'copied text'", "kbhost pasteboard",
            "kbhost pasteboard clear", "kbhost pasteboard",
        ]),
        GoldenCase("replacements", "text replacements: added, listed, JSON, removed; a missing one (5), a shortcut with a space (64)", [
            "kbhost replacements", "kbhost replacements add omw 'On my way!'", "kbhost replacements add brb 'Be right back'",
            "kbhost replacements", "kbhost replacements --json", "kbhost replacements remove omw", "kbhost replacements remove omw",
            "kbhost replacements add 'two words' x",
        ]),
        GoldenCase("validate", "validate: a bundled manifest loads; a bad one, a missing folder (10)", [
            "kbhost validate $REPO/Manifests/Calculator", "kbhost validate $REPO/Manifests/Kana/Info.plist",
            "kbhost validate $ROOT/bad", "kbhost validate $ROOT/nothing-here",
            "kbhost validate $REPO/Manifests/NumberPad $ROOT/bad",
        ], prepare: { w in try w.write("<plist><dict/></plist>", to: "bad/Info.plist") }),
        GoldenCase("install-uninstall", "install a bundle, see it, uninstall it; bundled ones and bad bundles refused (7, 10, 3)", [
            "kbhost install $ROOT/bundles/com.example.Pad", "kbhost list --all", "kbhost enable com.example.Pad",
            "kbhost set 'My Pad'", "kbhost type --keyboard com.example.Pad 4 2",
            "kbhost install $ROOT/bundles/com.example.Pad", "kbhost uninstall com.example.Pad", "kbhost current",
            "kbhost list --all --ids", "kbhost uninstall com.example.Pad", "kbhost uninstall dev.kbhost.Calculator",
            "kbhost install $ROOT/bad",
        ], prepare: { w in
            try w.bundle("com.example.Pad", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController", name: "My Pad")
            try w.write("<plist><dict/></plist>", to: "bad/Info.plist")
        }),
        GoldenCase("skipped-manifests", "a manifest kbhost cannot use and a second keyboard with one identifier are skipped with warnings", [
            "KBHOST_KEYBOARDS=$ROOT/more kbhost list --all",
            "KBHOST_KEYBOARDS=$ROOT/more kbhost enable dev.kbhost.Calculator",
        ], prepare: { w in
            try w.bundle("dev.kbhost.Calculator", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                         name: "Impostor", in: "more")
            try w.write("<plist><dict><key>CFBundleIdentifier</key><integer>7</integer></dict></plist>", to: "more/broken/Info.plist")
        }),
    ]
}
