/* kbhost's IBus engine, C side: a GObject subclass of IBusEngine whose virtual
   methods call the Swift front end through one table of handlers, and the
   few IBus calls the front end makes back. Engines are opaque pointers here,
   so Swift never sees GLib's types. Everything runs on the GLib main loop's
   thread (the one that calls kbh_ibus_run). */
#ifndef KBH_IBUS_H
#define KBH_IBUS_H
#include <stddef.h>

/* Code points of the app's text kept each side of its selection (see the surrounding handler). */
#define KBH_IBUS_SURROUNDING_KEEP 8192u

typedef struct kbh_ibus_handlers {
    void *context;
    /* A key event; returns 1 when the engine handled it, 0 to let the app have it. */
    int (*process_key)(void *context, void *engine, unsigned keyval, unsigned keycode, unsigned state);
    void (*focus_in)(void *context, void *engine);
    void (*focus_out)(void *context, void *engine);
    void (*reset)(void *context, void *engine);
    void (*enable)(void *context, void *engine);
    void (*disable)(void *context, void *engine);
    /* The app's text around the cursor; cursor and anchor count characters (code points).
       Only KBH_IBUS_SURROUNDING_KEEP code points each side of the selection arrive: an app's
       field can hold megabytes, and the engine keeps a window of it. */
    void (*surrounding)(void *context, void *engine, const char *text, unsigned cursor, unsigned anchor);
    /* The field's input purpose and hints (IBusInputPurpose, IBusInputHints). */
    void (*content_type)(void *context, void *engine, unsigned purpose, unsigned hints);
    /* A candidate chosen with the mouse: its index in the whole list. */
    void (*candidate)(void *context, void *engine, unsigned index);
    void (*destroyed)(void *context, void *engine);
} kbh_ibus_handlers;

typedef struct kbh_ibus_engine_info {
    const char *name, *longname, *description, *language, *symbol;
} kbh_ibus_engine_info;

/* Connects to the ibus-daemon (IBUS_ADDRESS, else the user's bus), offers the
   engines, and runs the main loop until the daemon goes away or kbh_ibus_quit.
   by_daemon: started by ibus-daemon from the component file (--ibus): take the
   component's bus name; otherwise register the component at run time.
   Returns 0, or -1 with a message in error. */
int kbh_ibus_run(const kbh_ibus_handlers *handlers, const kbh_ibus_engine_info *engines, size_t count,
                 const char *component, const char *exec, int by_daemon, char *error, size_t error_size);
void kbh_ibus_quit(void);
/* Calls back on the main loop when fd is readable (or hung up); 0 when the watch ends. */
unsigned kbh_ibus_watch(int fd, int (*callback)(void *context), void *context);
/* Calls back on the main loop after milliseconds; 0 when the timer ends. */
unsigned kbh_ibus_timer(unsigned milliseconds, int (*callback)(void *context), void *context);

/* Calls back on the main loop once ibus-daemon has answered a question asked now (NameHasOwner),
   with answered 1: whatever the daemon sent this process before it read the question (a focus
   change) has been handled by then. answered 0: no answer within 2 s, or not connected. */
void kbh_ibus_after_round_trip(int (*callback)(void *context, int answered), void *context);

const char *kbh_ibus_engine_name(void *engine);
int kbh_ibus_has_surrounding_text(void *engine);
/* Asks the app to send its surrounding text (it answers through the surrounding handler). */
void kbh_ibus_request_surrounding_text(void *engine);
void kbh_ibus_commit(void *engine, const char *text);
/* Preedit, underlined, with the cursor at a character (code point) offset and the `selected` characters
   after it (the segment being converted) underlined twice; hidden when text is empty.
   In commit mode: ibus-daemon itself commits it when the field loses focus or is reset. */
void kbh_ibus_preedit(void *engine, const char *text, unsigned cursor, unsigned selected);
void kbh_ibus_delete_surrounding(void *engine, int offset, unsigned characters);
/* A press and a release of a key, sent on to the app. */
void kbh_ibus_forward_key(void *engine, unsigned keyval, unsigned keycode, unsigned state);
/* The auxiliary text (above the candidates); hidden when empty. */
void kbh_ibus_auxiliary(void *engine, const char *text);
/* The candidate window: count labels; hidden when count is 0. */
void kbh_ibus_candidates(void *engine, const char *const *labels, size_t count);
/* The index in the whole list of the first candidate on the page shown. */
unsigned kbh_ibus_candidate_page_start(void *engine);
unsigned kbh_ibus_keyval_to_unicode(unsigned keyval);

#endif
