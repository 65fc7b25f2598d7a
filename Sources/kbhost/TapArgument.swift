import ArgumentParser
import KBHost

/// A TAP argument (`kbhost type`, `kbhost dev`), parsed once, as the command line is read:
/// `validate()` reports a malformed one with TapStep's own message, and `run()` takes the
/// parsed step.
struct TapArgument: ExpressibleByArgument, Sendable {
    /// The token as given.
    let token: String
    let step: Result<TapStep, TapStep.Invalid>

    init(argument: String) {
        token = argument
        step = Result { () throws(TapStep.Invalid) in try TapStep(argument) }
    }
}

/// A script of taps in one option (`kbhost preview --after "n i h o n g o space"`), parsed once.
struct TapScriptArgument: ExpressibleByArgument, Sendable {
    let steps: Result<[TapStep], TapStep.Invalid>

    init(argument: String) {
        steps = Result { () throws(TapStep.Invalid) in try TapStep.script(argument) }
    }
}

extension [TapArgument] {
    /// The steps, in order; the first malformed one's error (as `validate()` throws it).
    func steps() throws(ValidationError) -> [TapStep] {
        var steps: [TapStep] = []
        for tap in self {
            switch tap.step {
            case .success(let step): steps.append(step)
            case .failure(let error): throw ValidationError("\(error)")
            }
        }
        return steps
    }
}
