/*
 * kbhost keyboard plugin ABI, version 1: the input models appended to it later
 * (a key's extras: payload, alternates, drag action; haptic feedback; a drag's touch). kbhost_keyboard.h includes this header; include that one.
 *
 * These are the types the appended fields of kbh_host_v1 take. Each struct that
 * may grow starts with its struct_size, set by whoever fills it, and only ever
 * grows at its end: a plugin built against an older copy of this header passes
 * a smaller struct_size and the host reads no field past it. Check a host
 * function with KBH_HOST_HAS before calling it: an older host lacks it.
 */
#ifndef KBHOST_KEYBOARD_INPUTS_H
#define KBHOST_KEYBOARD_INPUTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a key carries beyond its kbh_key_spec_v1, which is an array element and
   never grows: given with the host's set_key_extras (appended later in version 1).
   struct_size is sizeof(kbh_key_extras_v1) as the plugin was built: the host
   reads no field past it, so later fields are appended here, never inserted. */
typedef struct kbh_key_extras_v1 {
    uint32_t struct_size;
    const char *payload;  /* a string for the key's action ("greek"): keys that share one
                             action read it with key_payload instead of parsing their
                             identifier; NULL: none */
    /* Alternates, shown on a long press as a choice (e → é è ê), as iOS's callouts:
       when the person picks one, the key's tap action is called with an event of
       kind KBH_EVENT_ALTERNATE and a sender whose label is the alternate picked
       (identifier, role, row and column stay the key's), so an action that inserts
       its sender's label types it unchanged. Letting go without picking is a tap. */
    const char *const *alternates;
    uint32_t alternate_count;
    /* A selector of the class ("v@:@@", as a key action) called for a drag that begins
       on the key (a space bar that moves the cursor, swipe typing): events of kinds
       KBH_EVENT_DRAG_BEGAN, then _MOVED for each move, then _ENDED; during each, the
       host's touch() says where the touch is. A key with one gets no tap for a drag;
       a drag on a key without one is a touch down and nothing more (the touch left it).
       NULL: none. */
    const char *drag_action;
} kbh_key_extras_v1;

/* Where a drag's touch is, filled by the host's touch() (up to out->struct_size, which the
   plugin sets). Points in the layout's space: the keyboard's picture as `kbhost preview
   --json` lays it out in the current orientation (origin at the top left; the display line
   and the candidate bar on top, then the key rows). */
typedef struct kbh_touch_v1 {
    uint32_t struct_size;
    double x, y;          /* the touch now */
    double dx, dy;        /* from where the drag began (the key's centre) */
    const char *key;      /* the identifier of the key under the touch; NULL: none (borrowed) */
} kbh_touch_v1;

/* Haptic feedback, play_haptic's kind: UIImpactFeedbackGenerator's styles (with an
   intensity, 0…1, as impactOccurred(intensity:)), UISelectionFeedbackGenerator, and
   UINotificationFeedbackGenerator's types. */
typedef enum kbh_haptic {
    KBH_HAPTIC_LIGHT = 0, KBH_HAPTIC_MEDIUM = 1, KBH_HAPTIC_HEAVY = 2,
    KBH_HAPTIC_SOFT = 3, KBH_HAPTIC_RIGID = 4,
    KBH_HAPTIC_SELECTION = 5,
    KBH_HAPTIC_SUCCESS = 6, KBH_HAPTIC_WARNING = 7, KBH_HAPTIC_ERROR = 8,
} kbh_haptic;

#ifdef __cplusplus
}
#endif

#endif /* KBHOST_KEYBOARD_INPUTS_H */
