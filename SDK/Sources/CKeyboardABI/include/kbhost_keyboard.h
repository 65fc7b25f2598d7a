/*
 * kbhost keyboard plugin ABI, version 1.
 *
 * This header is the whole contract between a keyboard plugin (a shared
 * library) and the kbhost extension process that loads it. A plugin written
 * in C includes it directly; the Swift SDK (KeyboardSDK) is a thin layer over
 * it. Rules of the contract:
 *
 *  - A plugin exports exactly one entry symbol, KBH_ENTRY_SYMBOL_V1
 *    ("kbhost_keyboard_plugin_v1"), a function returning a pointer to a
 *    static kbh_plugin_v1. A later ABI adds a new symbol beside it
 *    (…_v2); nothing declared here ever changes meaning.
 *  - The plugin describes its classes. The worker picks the one the
 *    manifest's NSExtensionPrincipalClass names, creates one instance and
 *    calls its selectors through libffi, using each selector's type encoding.
 *  - Type encodings follow Objective-C's: the return type, then one
 *    character per argument. Every method takes the instance ('@') and its
 *    selector (':') first, as objc_msgSend does. Known characters:
 *        v void      B bool      i int32_t   q int64_t   d double
 *        @ pointer to an object (the instance, a kbh_key_v1, a kbh_event_v1,
 *          or an opaque kbh_text_input_v1)
 *        : const kbh_selector_v1 * (the selector being called)
 *    A selector's name has one ':' per argument after _cmd, as in
 *    Objective-C ("viewWillAppear:", "insertDigit:event:").
 *  - Strings are UTF-8 and NUL-terminated. Strings the host returns are
 *    borrowed: valid until the next call into the host table.
 *  - Nothing unwinds across the boundary; a plugin that crashes ends its
 *    own process, never the host.
 */
#ifndef KBHOST_KEYBOARD_H
#define KBHOST_KEYBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KBH_ABI_VERSION 1
#define KBH_ENTRY_SYMBOL_V1 "kbhost_keyboard_plugin_v1"

/* ------------------------------------------------------------------ */
/* Values the host passes to selectors                                 */
/* ------------------------------------------------------------------ */

/* What a key is for. The host uses roles to find "space", "return",
   "delete", "shift" and "globe" whatever their labels say. */
typedef enum kbh_key_role {
    KBH_ROLE_CHARACTER = 0,
    KBH_ROLE_SPACE = 1,
    KBH_ROLE_RETURN = 2,
    KBH_ROLE_DELETE = 3,
    KBH_ROLE_SHIFT = 4,
    KBH_ROLE_GLOBE = 5,
    KBH_ROLE_MODE = 6,     /* switches the keyboard's own pages (123, #+=, greek…) */
    KBH_ROLE_FUNCTION = 7, /* anything else: cursor keys, "=", candidates… */
} kbh_key_role;

/* The control events of UIControl that kbhost delivers. */
typedef enum kbh_event_kind {
    KBH_EVENT_TOUCH_UP_INSIDE = 0, /* a tap */
    KBH_EVENT_TOUCH_DOWN = 1,
    KBH_EVENT_TOUCH_DOWN_REPEAT = 2, /* the second touch of a double tap */
    KBH_EVENT_LONG_PRESS = 3,
    KBH_EVENT_REPEAT = 4,            /* auto-repeat while a repeating key is held */
    KBH_EVENT_ALTERNATE = 5, /* appended: an alternate chosen on a long press (kbh_key_extras_v1) */
    KBH_EVENT_DRAG_BEGAN = 6, KBH_EVENT_DRAG_MOVED = 7, KBH_EVENT_DRAG_ENDED = 8, /* appended: drag_action */
} kbh_event_kind;

/* The sender of a key action ('@' argument). */
typedef struct kbh_key_v1 {
    const char *identifier; /* the key's id in the layout, unique in it */
    const char *label;
    kbh_key_role role;
    int32_t row;
    int32_t column;
} kbh_key_v1;

/* The event of a key action ('@' argument after the sender). */
typedef struct kbh_event_v1 {
    kbh_event_kind kind;
    int32_t tap_count;     /* 2 for the second tap of a double tap */
    int32_t repeat_count;  /* 1, 2, … for auto-repeat */
    int64_t timestamp_ns;  /* the session's clock; virtual in tests */
} kbh_event_v1;

/* The argument of textWillChange: and friends: the document, opaque. */
typedef struct kbh_text_input_v1 kbh_text_input_v1;

/* ------------------------------------------------------------------ */
/* The key layout a controller sets                                    */
/* ------------------------------------------------------------------ */

/* One key. Actions name selectors of the principal class, as
   addTarget(_:action:for:) does; NULL means none for that event. */
typedef struct kbh_key_spec_v1 {
    const char *identifier;    /* NULL: derived from row and column */
    const char *label;
    kbh_key_role role;
    double width;              /* relative width; 0 means 1 */
    const char *action;        /* on touch up inside (a tap) */
    const char *touch_down_action;
    const char *long_press_action;
    const char *double_tap_action;
    bool repeats;              /* while held, the tap action repeats (delete) */
} kbh_key_spec_v1;

typedef struct kbh_row_spec_v1 {
    const kbh_key_spec_v1 *keys;
    uint32_t key_count;
} kbh_row_spec_v1;

typedef struct kbh_layout_v1 {
    const char *display;       /* a line shown above the keys (calculator display,
                                  composition…); NULL or "" for none */
    const kbh_row_spec_v1 *rows;
    uint32_t row_count;
} kbh_layout_v1;

/* ------------------------------------------------------------------ */
/* What one call may do                                                */
/* ------------------------------------------------------------------ */

/* Everything a method does before it returns (edits, layouts, display lines,
   logs, clicks…) goes back as one reply, held whole before it is applied. So
   a call may make at most KBH_MAX_CALL_EFFECTS changes, taking at most
   KBH_MAX_CALL_BYTES on the wire and KBH_MAX_CALL_MEMORY of the host's memory,
   and its edits, each after the first counted at the length in UTF-16 units of
   the document it leaves (the host's time for an edit grows with it), at most
   KBH_MAX_CALL_EDIT_WORK: about 0.2 s; 512 edits to 131,072 units, 64,000 to
   a thousand. A call that goes over fails: the keyboard ends with an error
   naming the limit, and none of that call's changes reach the document.

   In practice: consecutive insert_text calls are one change and one edit, their
   text counted at its UTF-8 size, so a call may insert several MiB. A layout
   costs, on the wire, 14 bytes a key plus 4 and the UTF-8 of each string
   (identifier, label, actions); in the host's memory 400 bytes a key (decoded,
   then the host's layout and index) plus 33 and the UTF-8 of each string over
   15 bytes (shorter ones live inline; the identifier counts twice, 3 bytes
   more). 100,000 keys with short labels take about 5 MB and 40 MB and pass;
   130,000 do not. Each set_layout counts, even if replaced: set one per call. */
#define KBH_MAX_CALL_EFFECTS 65536
#define KBH_MAX_CALL_BYTES (8 << 20)
#define KBH_MAX_CALL_MEMORY (48 << 20)
#define KBH_MAX_CALL_EDIT_WORK (64 << 20)

/* ------------------------------------------------------------------ */
/* Facts the controller exposes                                        */
/* ------------------------------------------------------------------ */

typedef enum kbh_keyboard_type {
    KBH_KEYBOARD_DEFAULT = 0, KBH_KEYBOARD_ASCII_CAPABLE = 1,
    KBH_KEYBOARD_NUMBERS_AND_PUNCTUATION = 2, KBH_KEYBOARD_URL = 3,
    KBH_KEYBOARD_NUMBER_PAD = 4, KBH_KEYBOARD_PHONE_PAD = 5,
    KBH_KEYBOARD_NAME_PHONE_PAD = 6, KBH_KEYBOARD_EMAIL_ADDRESS = 7,
    KBH_KEYBOARD_DECIMAL_PAD = 8, KBH_KEYBOARD_TWITTER = 9,
    KBH_KEYBOARD_WEB_SEARCH = 10, KBH_KEYBOARD_ASCII_CAPABLE_NUMBER_PAD = 11,
} kbh_keyboard_type;

typedef enum kbh_return_key_type {
    KBH_RETURN_DEFAULT = 0, KBH_RETURN_GO = 1, KBH_RETURN_GOOGLE = 2,
    KBH_RETURN_JOIN = 3, KBH_RETURN_NEXT = 4, KBH_RETURN_ROUTE = 5,
    KBH_RETURN_SEARCH = 6, KBH_RETURN_SEND = 7, KBH_RETURN_YAHOO = 8,
    KBH_RETURN_DONE = 9, KBH_RETURN_EMERGENCY_CALL = 10, KBH_RETURN_CONTINUE = 11,
} kbh_return_key_type;

typedef enum kbh_autocapitalization {
    KBH_AUTOCAP_NONE = 0, KBH_AUTOCAP_WORDS = 1,
    KBH_AUTOCAP_SENTENCES = 2, KBH_AUTOCAP_ALL_CHARACTERS = 3,
} kbh_autocapitalization;

typedef enum kbh_tristate { KBH_DEFAULT = 0, KBH_NO = 1, KBH_YES = 2 } kbh_tristate;

typedef enum kbh_appearance {
    KBH_APPEARANCE_DEFAULT = 0, KBH_APPEARANCE_DARK = 1, KBH_APPEARANCE_LIGHT = 2,
} kbh_appearance;

/* UITextInputTraits of the focused field. */
typedef struct kbh_traits_v1 {
    kbh_keyboard_type keyboard_type;
    kbh_return_key_type return_key_type;
    kbh_autocapitalization autocapitalization;
    kbh_tristate autocorrection;
    kbh_tristate spell_checking;
    kbh_appearance appearance;
    bool secure_text_entry;
    bool enables_return_key_automatically;
} kbh_traits_v1;

/* A group default's value (UserDefaults' property list types). */
typedef enum kbh_value_type {
    KBH_VALUE_BOOL = 1, KBH_VALUE_INT = 2, KBH_VALUE_DOUBLE = 3,
    KBH_VALUE_STRING = 4, KBH_VALUE_DATA = 5,
} kbh_value_type;

typedef struct kbh_value_v1 {
    kbh_value_type type;
    bool boolean;
    int64_t integer;
    double real;
    const uint8_t *bytes;  /* STRING (UTF-8, also NUL-terminated) and DATA */
    size_t length;
} kbh_value_v1;

/* Input models appended later in version 1 (key extras, …): their types. */
#include "kbhost_keyboard_inputs.h"

/* ------------------------------------------------------------------ */
/* The services table the host gives a plugin                         */
/* ------------------------------------------------------------------ */

/* Every function takes the table's ctx first. Offsets are UTF-16 code
   units, as in UITextDocumentProxy; the host never splits a grapheme
   cluster (a move lands on the next cluster boundary in its direction). */
typedef struct kbh_host_v1 {
    uint32_t abi_version;      /* KBH_ABI_VERSION */
    uint32_t struct_size;      /* sizeof(kbh_host_v1) as the host knows it */
    void *ctx;

    /* UITextDocumentProxy */
    void (*insert_text)(void *ctx, const char *utf8);
    void (*delete_backward)(void *ctx);
    void (*adjust_text_position)(void *ctx, int64_t utf16_offset);
    void (*set_marked_text)(void *ctx, const char *utf8, int64_t selected_location, int64_t selected_length);
    void (*unmark_text)(void *ctx);
    bool (*has_text)(void *ctx);
    /* The document as the keyboard sees it is a window around the selection,
       the same in a keyboard's process and in the testing kit: up to 512
       UTF-16 code units before the selection's start and 512 after its end,
       widened to whole grapheme clusters and to cover all marked text, line
       breaks included (not a paragraph). The keyboard's own edits apply to it
       at once. The host cuts a fresh one when the app changes the document,
       when the insertion point comes within 128 units of an edge with more
       text beyond it, or when the window has grown past 2048 units. has_text
       is about the whole document. */
    const char *(*document_context_before_input)(void *ctx); /* NULL: none */
    const char *(*document_context_after_input)(void *ctx);  /* NULL: none */
    const char *(*selected_text)(void *ctx);                 /* NULL: no selection */
    const char *(*marked_text)(void *ctx);                   /* NULL: nothing marked */
    const char *(*document_identifier)(void *ctx);
    void (*text_input_traits)(void *ctx, kbh_traits_v1 *out);

    /* UIInputViewController */
    void (*advance_to_next_input_mode)(void *ctx);
    void (*dismiss_keyboard)(void *ctx);
    void (*play_input_click)(void *ctx);
    bool (*needs_input_mode_switch_key)(void *ctx);
    bool (*has_full_access)(void *ctx);
    const char *(*primary_language)(void *ctx);
    /* The enabled input modes, one identifier per line; the current first. */
    const char *(*input_modes)(void *ctx);

    /* The key layout: replaces the whole layout, or only the display line. */
    void (*set_layout)(void *ctx, const kbh_layout_v1 *layout);
    void (*set_display)(void *ctx, const char *utf8);

    /* Log text for the host (stderr works too). level: 0 debug … 3 error. */
    void (*log)(void *ctx, int32_t level, const char *utf8);

    /* ---- Appended later in version 1: check struct_size before use ---- */
    /* (KBH_HOST_HAS(host, field) does.) Functions returning int32_t return 0
       or an errno value (EPERM: needs open access; ENOENT: no such key or
       group; EACCES/EROFS: the kernel refused); kbh last_error then says what
       happened in a sentence. */

    /* requestSupplementaryLexicon: the user's text replacements, one entry
       per line, "shortcut\tphrase"; "" when there are none. */
    const char *(*supplementary_lexicon)(void *ctx);

    /* The keyboard's own container folder (read/write), and the folder of an
       App Group its manifest declares (read; write only with open access).
       NULL: no container / group not declared. */
    const char *(*container_path)(void *ctx);
    const char *(*group_container_path)(void *ctx, const char *group);

    /* UserDefaults(suiteName: group): get (ENOENT when the key is not set;
       the value is borrowed until the next call) and set (value NULL removes
       the key). Writes need open access and are atomic. */
    int32_t (*defaults_get)(void *ctx, const char *group, const char *key, kbh_value_v1 *out);
    int32_t (*defaults_set)(void *ctx, const char *group, const char *key, const kbh_value_v1 *value);

    /* UIPasteboard.general's string: needs open access (EPERM otherwise).
       get stores a borrowed string (NULL when the pasteboard is empty). */
    int32_t (*pasteboard_get)(void *ctx, const char **out_utf8);
    int32_t (*pasteboard_set)(void *ctx, const char *utf8);

    /* A sound other than the input click (AudioServicesPlaySystemSound):
       needs open access. */
    int32_t (*play_sound)(void *ctx, const char *name);

    /* The last failing call's explanation; borrowed. */
    const char *(*last_error)(void *ctx);

    /* A key's extras (kbh_key_extras_v1), by its identifier in the current layout,
       or its place "r<row>c<column>" from 0 (for keys sharing one). After set_layout,
       in the same call or a later one; a new set_layout drops them all. extras
       NULL: none. ENOENT: no such key. key_payload reads a key's payload back
       (an action's sender: key_payload(ctx, key->identifier)); NULL: none. */
    int32_t (*set_key_extras)(void *ctx, const char *identifier, const kbh_key_extras_v1 *extras);
    const char *(*key_payload)(void *ctx, const char *identifier);

    /* Haptic feedback (a kbh_haptic; intensity 0…1, for the impact styles). Needs
       open access, as on iOS, where a keyboard without it feels nothing: EPERM.
       EINVAL: no such kind. The host records each one in its events. */
    int32_t (*play_haptic)(void *ctx, int32_t haptic, double intensity);

    /* During a drag action: where the touch is (kbh_touch_v1). ENOENT otherwise. */
    int32_t (*touch)(void *ctx, kbh_touch_v1 *out);
} kbh_host_v1;

/* Whether a host table has a field (tables only ever grow at the end). */
#define KBH_HOST_HAS(host, field) \
    ((host)->struct_size >= offsetof(kbh_host_v1, field) + sizeof((host)->field) && (host)->field != NULL)

/* ------------------------------------------------------------------ */
/* What a plugin exports                                               */
/* ------------------------------------------------------------------ */

typedef struct kbh_selector_v1 {
    const char *name;   /* "viewDidLoad", "viewWillAppear:", "insertDigit:event:" */
    const char *types;  /* "v@:", "v@:B", "v@:@@" */
    void *imp;          /* a C function of exactly that signature */
    void *info;         /* the plugin's own, untouched by the host */
} kbh_selector_v1;

typedef struct kbh_class_v1 kbh_class_v1;
struct kbh_class_v1 {
    const char *name;
    /* Create the instance. host stays valid for the process's life;
       NULL on failure. */
    void *(*create)(const kbh_class_v1 *cls, const kbh_host_v1 *host);
    const kbh_selector_v1 *selectors;
    uint32_t selector_count;
    void *info;         /* the plugin's own, untouched by the host */
};

typedef struct kbh_plugin_v1 {
    uint32_t abi_version;      /* KBH_ABI_VERSION the plugin was built for */
    uint32_t struct_size;      /* sizeof(kbh_plugin_v1) */
    const kbh_class_v1 *const *classes;
    uint32_t class_count;
} kbh_plugin_v1;

typedef const kbh_plugin_v1 *(*kbh_entry_v1)(void);

/* ------------------------------------------------------------------ */
/* The selectors the host calls                                        */
/* ------------------------------------------------------------------ */

/* One selector the host calls by name, and the encoding it passes. */
typedef struct kbh_host_selector_v1 {
    const char *name;
    const char *types;
} kbh_host_selector_v1;

/* Selectors the host calls on the principal class, when it has them, with
   the encodings it passes: a class's selector of one of these names must
   have exactly that encoding. This table is kbhost's one list of them: the
   worker checks plugins against it and the Swift SDK publishes it. */
#define KBH_HOST_SELECTOR_COUNT_V1 11
static const kbh_host_selector_v1 kbh_host_selectors_v1[KBH_HOST_SELECTOR_COUNT_V1] = {
    {"viewDidLoad", "v@:"},
    {"viewWillAppear:", "v@:B"},
    {"viewDidAppear:", "v@:B"},
    {"viewWillDisappear:", "v@:B"},
    {"viewDidDisappear:", "v@:B"},
    {"textWillChange:", "v@:@"},
    {"textDidChange:", "v@:@"},
    {"selectionWillChange:", "v@:@"},
    {"selectionDidChange:", "v@:@"},
    {"viewWillTransitionToWidth:height:", "v@:dd"},
    {"didReceiveMemoryWarning", "v@:"},
};

/* Appended later in version 1, beside the table (which keeps its count):
   each presentation of the keyboard has its own controller, as on iOS. When
   the keyboard is shown again (kbhost's KeyboardSession.represent, the testing
   kit's representKeyboard) the host calls viewWillDisappear:/viewDidDisappear:,
   ends the instance and creates a new one of the same class in the same
   process (create, viewDidLoad, viewWillAppear:, viewDidAppear:). Before it
   lets go of the old instance it calls this selector, when the class has one:
   free the instance there (the Swift SDK releases the controller, so what it
   still holds shows as a leak). A class without it is abandoned, its memory
   kept. Nothing is called on the instance afterwards. */
#define KBH_DEALLOC_SELECTOR_V1 "dealloc"
#define KBH_DEALLOC_TYPES_V1 "v@:"

/* Key actions, named by the layout: no argument, the sender key, or the
   sender and the event. */
#define KBH_KEY_ACTION_TYPES_V1 "v@:"
#define KBH_KEY_ACTION_TYPES_KEY_V1 "v@:@"
#define KBH_KEY_ACTION_TYPES_KEY_EVENT_V1 "v@:@@"

#ifdef __cplusplus
}
#endif

#endif /* KBHOST_KEYBOARD_H */
