import CAnthy
import Glibc
import Synchronization

/// One segment (文節) of a conversion: the part of the reading it covers and
/// its candidates, best first.
struct Segment: Equatable, Sendable {
    var reading: String
    var candidates: [String]
}

/// anthy keeps one configuration and one dictionary per process, and is not
/// thread-safe: it is started once, and every call goes through this lock (a
/// keyboard runs on one thread; unit tests create keyboards on many).
/// nil: not started yet; then whether it started.
private let anthy = Mutex<Bool?>(nil)

/// Kana–kanji conversion through anthy: a reading in, segments with their
/// candidates out. Where anthy cannot start, every reading is one segment
/// whose candidates are its hiragana and its katakana.
final class KanaConverter {
    private let context: OpaquePointer?
    /// Whether choices teach anthy (its history is kept in the container).
    private let learns: Bool

    /// Whether conversion goes through anthy (else: hiragana and katakana only).
    var isAvailable: Bool { context != nil }

    /// `home`: the keyboard's container, where anthy keeps what it learns;
    /// nil: learn nothing, write nothing.
    init(home: String?) {
        learns = home != nil
        let made: OpaquePointer? = anthy.withLock { started in
            if started == nil { started = KanaConverter.start(home: home) }
            guard started == true, let context = anthy_create_context() else { return nil }
            anthy_context_set_encoding(context, ANTHY_UTF8_ENCODING)
            return context
        }
        context = made
    }

    deinit {
        if let context { anthy.withLock { _ in anthy_release_context(context) } }
    }

    /// Starts anthy with its files under `home` (its dictionary is read from
    /// /usr/share/anthy, as /etc/anthy/anthy-conf says).
    private static func start(home: String?) -> Bool {
        // anthy looks up the user's passwd entry when it reads its
        // configuration and does not check the answer: where there is none (a
        // sandbox that hides /etc/passwd, a uid without an entry) it would
        // crash. Ask first, and go without it.
        guard getpwuid(getuid()) != nil else { return false }
        // anthy reports unwritable files on stderr (expected here). Its logger
        // function is ignored and it prints only messages of exactly the
        // level set: none has level -1.
        anthy_set_logger(nil, -1)
        // anthy takes HOME from the passwd entry, not the environment: point it
        // at the container (or nowhere, when there is none: "/dev/null/.anthy"
        // cannot be made, so nothing is written).
        anthy_conf_override("HOME", home ?? "/dev/null")
        return anthy_init() == 0
    }

    /// Converts a reading; anthy splits it into segments.
    func convert(_ reading: String) -> [Segment] {
        guard let context else { return [KanaConverter.fallback(reading)] }
        return anthy.withLock { _ in
            anthy_set_string(context, reading)
            return KanaConverter.segments(of: context)
        }
    }

    /// Moves the end of segment `index` by `delta` characters; the segments
    /// after it are converted again.
    func resizeSegment(_ index: Int, by delta: Int) -> [Segment]? {
        guard let context else { return nil }
        return anthy.withLock { _ in
            anthy_resize_segment(context, Int32(index), Int32(delta))
            return KanaConverter.segments(of: context)
        }
    }

    /// Tells anthy which candidate was chosen for each segment of the last
    /// conversion, so that it ranks them higher next time.
    func learn(_ choices: [Int]) {
        guard learns, let context else { return }
        anthy.withLock { _ in
            for (segment, candidate) in choices.enumerated() {
                anthy_commit_segment(context, Int32(segment), Int32(candidate))
            }
        }
    }

    // MARK: anthy's answers (called with the lock held)

    private static func segments(of context: OpaquePointer) -> [Segment] {
        var conversion = anthy_conv_stat()
        guard anthy_get_stat(context, &conversion) == 0 else { return [] }
        return (0..<conversion.nr_segment).map { n in
            var stat = anthy_segment_stat()
            anthy_get_segment_stat(context, n, &stat)
            let reading = text(context, segment: n, candidate: NTH_UNCONVERTED_CANDIDATE)
            var candidates = (0..<stat.nr_candidate).map { text(context, segment: n, candidate: $0) }
            candidates = candidates.filter { !$0.isEmpty }
            return Segment(reading: reading, candidates: candidates.isEmpty ? [reading] : candidates)
        }
    }

    private static func text(_ context: OpaquePointer, segment: Int32, candidate: Int32) -> String {
        let length = anthy_get_segment(context, segment, candidate, nil, 0)
        guard length > 0 else { return "" }
        return String(unsafeUninitializedCapacity: Int(length) + 1) { buffer in
            let written = buffer.withMemoryRebound(to: CChar.self) {
                anthy_get_segment(context, segment, candidate, $0.baseAddress, Int32($0.count))
            }
            return written > 0 ? min(Int(written), Int(length)) : 0
        }
    }

    static func fallback(_ reading: String) -> Segment {
        let katakana = Romaji.katakana(reading)
        return Segment(reading: reading, candidates: katakana == reading ? [reading] : [reading, katakana])
    }
}
