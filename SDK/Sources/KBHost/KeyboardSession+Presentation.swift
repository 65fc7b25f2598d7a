import KBText
package import KBWire

// MARK: Presentations, memory warnings and what the controller reports

extension KeyboardSession {
    /// The keyboard is dismissed and shown again, as iOS does it: the
    /// controller disappears and ends, and a new instance of its class is
    /// created in the same process (viewDidLoad, viewWillAppear, viewDidAppear).
    /// What the old controller still holds after it ended stays in the
    /// process's footprint: the reopen leak (see KBH_DEALLOC_SELECTOR_V1).
    public func represent(animated: Bool = false) throws(KeyboardFailure) {
        if let failure { throw failure }
        try disappear(animated: animated)
        mirror.cut(from: document.buffer)
        mirror.isPending = false
        refreshPasteboard()
        factsChanged = false
        let request = LoadRequest(pluginPath: keyboard.libraryPath, className: keyboard.manifest.principalClass,
                                  facts: facts, window: mirror.window, sandbox: sandbox)
        let reply: WorkerMessage
        do { reply = try process.request(.load(request), phase: "new controller", deadlineMilliseconds: nil) } catch {
            throw fail(error)
        }
        guard case .loaded(let loaded) = reply else {
            throw fail(violation("answered load with something other than loaded", phase: "new controller"))
        }
        presentations += 1
        try apply(loaded.effects, phase: "new controller")
        try deliver(.lifecycle(.viewDidLoad, animated: false), phase: "viewDidLoad")
        try appear(animated: animated)
    }

    /// didReceiveMemoryWarning now. The governor sends it by itself when the
    /// footprint passes `Governor.memoryWarningFraction` of the budget.
    public func deliverMemoryWarning() throws(KeyboardFailure) {
        try deliver(.memoryWarning, phase: "didReceiveMemoryWarning")
    }

    /// Changes what the controller reports; the keyboard sees it on its next call.
    package func updateFacts(_ change: (inout ControllerFacts) -> Void) {
        change(&facts)
        factsChanged = true
    }

    /// The general pasteboard's string as the keyboard sees it (the testing kit sets it
    /// directly; with a pasteboard file, the file wins when it changes).
    package var pasteboardText: String? { facts.pasteboard }
}

extension TextEdit {
    /// The proxy call that made this edit, as `KeyboardSession.recordsProxyCalls` records it.
    var proxyEvent: SessionEvent {
        switch self {
        case .insertText(let s): SessionEvent("insertText", s)
        case .deleteBackward: SessionEvent("deleteBackward")
        case .adjustTextPosition(let n): SessionEvent("adjustTextPosition", String(n))
        case .setMarkedText(let s, let r): SessionEvent("setMarkedText", "\(s) {\(r.location), \(r.length)}")
        case .unmarkText: SessionEvent("unmarkText")
        }
    }
}
