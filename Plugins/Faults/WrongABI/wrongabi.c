/* A keyboard built for an ABI this kbhost does not speak (version 99). */
#include <kbhost_keyboard.h>
#include <stddef.h>

static const kbh_plugin_v1 plugin = {
    .abi_version = 99,
    .struct_size = sizeof(kbh_plugin_v1),
    .classes = NULL,
    .class_count = 0,
};

const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) { return &plugin; }
