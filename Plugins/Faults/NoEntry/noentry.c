/* A "keyboard" that forgot its entry symbol: loading it must fail with a
   message naming kbhost_keyboard_plugin_v1. */
int kbhost_fault_no_entry_marker(void) { return 42; }
