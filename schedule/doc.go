// Package schedule holds the credit registration pipeline's timing and
// classification rules as pure functions of a row and an instant.
//
// It holds no words: it returns codes and parameters (a phase, a reason, a
// refusal with the instant it lifts, a verdict as Phrases), and the edge
// (web, views, the alert mails, the lookup's history line) words them from
// the catalogue in views/i18n.
//
// It imports only the standard library and never reads the clock: every
// function that depends on time takes now as a parameter, so a handler, a
// test, the demo-data generator and the SQL that mirrors these rules all see
// the same answer for the same row at the same instant.
//
// The timing half (backoff.go) is a port of the pipeline's Rust
// library/credit_registration/backoff.rs and of the helpers it uses in
// headless_lms_utils::backoff. Where that code counts whole seconds, so does
// this package, so the dashboard agrees with the pipeline to the second.
//
// The attention half (reason.go, attention.go, classify.go) is the LMS's
// models/src/credit_registrations/attention.rs: its eleven reasons, their
// detectors and each picked row's standing, so a row is on regdesk's
// needs-a-person list exactly when it is on the LMS's Needs attention queue.
// What regdesk shows beyond them are phases and notes, never reasons.
package schedule
