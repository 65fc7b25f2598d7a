/* The hostile keyboard has no public header; include/ keeps SwiftPM content. */
