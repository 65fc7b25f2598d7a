/*
 * kbhost keyboard plugin ABI, version 1: the input models appended to it later
 * (a key's extras: payload and alternates; haptic feedback, …). kbhost_keyboard.h includes this header; include that one.
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
} kbh_key_extras_v1;

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
