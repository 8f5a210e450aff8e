// Package lms is regdesk's client for the LMS's own credit-registration admin endpoints (the
// University of Helsinki MOOC platform, github.com/rage/secret-project-331, "the LMS"). Every
// change regdesk makes to a ledger row goes through these endpoints, as the person acting, so the
// LMS's transition() stays the only writer of a row's state and the LMS's audit names the person.
//
// A write either returns the LMS's answer (applied, refused with the LMS's refusal, or no change),
// or an *Error whose Kind says whether anything may have been applied: KindRejected, KindNotFound,
// KindUnauthorized, KindForbidden, KindInvalidInput and KindNotSent mean nothing was applied;
// KindUnknownOutcome means it may or may not have been (a timeout, a connection lost after
// sending, a 5xx, a proxy's HTML page, an unreadable answer), and the caller must re-read the row
// before it shows or retries anything.
//
// # Sources
//
// Facts here were read from the LMS's source; the numbers in brackets are stored-text ids of the
// files read (lms-database.md §0 explains them). Code was not copied.
//
//   - [70926634491] server/src/controllers/main_frontend/credit_registration_admin/ledger.rs:
//     transition, bulk-transition, requeue-retryable, apply_transition.
//   - [71515058884] …/credit_registration_admin/errors.rs: dismiss-attention.
//   - [60784932859] …/credit_registration_admin/dashboard.rs: phase pause, resume, run-now.
//   - [69424942192] …/credit_registration_admin/courses.rs: course module pause, resume.
//   - [71131224499] …/credit_registration_admin/mod.rs: authorize_credit_registration_admin
//     (Act::AdministrateCreditRegistrations on Res::GlobalPermissions), required_reason.
//   - [71594867055] models/src/credit_registrations/state.rs: ResubmissionFacts and its refusals.
//   - [71115419823] models/src/credit_registrations/transition.rs: transition(),
//     settle_pending_supersessions. [71082675886] row_writes.rs: make_due_now_batch,
//     requeue_retryable_now, set_needs_admin_attention.
//   - [71168911011] models/src/credit_registrations/attention.rs: get_attention_items,
//     dismiss_attention. [71445146341] the attention rules.
//   - [60821698065] models/src/credit_registration_admin_actions.rs: the audit row;
//     GLOBAL_ADMIN_ROLE = "global_admin".
//   - [61093281089] models/src/credit_registration_phase_state.rs: pause, resume, run_now.
//   - [2465451563] server/src/domain/authorization.rs: the AuthUser extractor reads only the
//     actix session (key "user"); authorize() answers 403 for a user without the right role.
//   - [34341330933] server/src/controllers/helpers/…: ControllerError and its JSON body
//     {"title","message","source","data"}; BadRequest 400, NotFound 404, Unauthorized 401,
//     Forbidden 403, anything else 500; a model RecordNotFound is 404, PreconditionFailed,
//     InvalidRequest and a database constraint are 400.
//   - [60803375201] the base credit-registration migration (the audit table's CHECKs).
//
// # Endpoints
//
// All are POST under BaseURL + "/api/v0/main-frontend/credit-registration-admin", with a JSON body.
// "reason" is trimmed by the LMS; a blank one is refused with 400 "A reason is required." where the
// table says the reason is required. Every write happens in one transaction with its audit row in
// credit_registration_admin_actions (actor_user_id = the acting user, actor_role "global_admin").
//
//	path                                     request                                  200 answer
//	registrations/{id}/transition            {"action":A,"reason":s}                  {"outcome","refusal","state","needs_admin_attention"}
//	registrations/bulk-transition            {"action":A,"credit_registration_ids":[…],"reason":s}
//	                                                                                  {"applied_count","skipped":[{"refusal","count"}],"not_found_count","max_rows_per_call":500}
//	registrations/requeue-retryable          {"course_id":u|null,"course_module_id":u|null,"reason":s}
//	                                                                                  {"requeued_count","max_rows_per_call":5000}
//	registrations/{id}/dismiss-attention     {"reason":s}                             {"dismissed_reasons":[…]}
//	phases/{phase}/pause                     {"reason":s}                             the phase's status (PhaseStatus)
//	phases/{phase}/resume                    {"reason":s|null}  (optional)            the phase's status
//	phases/{phase}/run-now                   {"reason":s|null}  (optional)            the phase's status
//	courses/{course_module_id}/pause         {"reason":s}                             true
//	courses/{course_module_id}/resume        {"reason":s|null}  (optional)            true
//
// A (serde tag "kind", snake_case): {"kind":"state_move","to_state":"ready_to_submit"|"cancelled"},
// {"kind":"clear_needs_admin_attention"} or {"kind":"check_now"}.
//
// Errors, in the order the LMS checks them (actix runs the extractors first: the user, then the
// path, then the body; then the handler authorizes):
//
//   - 401 not authenticated (today: no session; under the contract below: no or a wrong token, or
//     no or an unknown acting user).
//   - 404 a path id that is not a uuid (actix's path extractor), 400 a body that is not the JSON
//     the handler takes.
//   - 403 the user lacks a global admin or credit_registration_admin role.
//   - 400 "A reason is required." (blank reason, where required).
//   - transition: 404 no live row with that id; 400 "This attempt has been replaced by a later
//     one. Act on the later one." (superseded); then a refusal is a 200 with outcome "refused",
//     nothing written, no audit row; 400 "Credit registration … is in …, not the expected …:
//     refusing to overwrite it." when another writer moved the row between the read and the write.
//   - bulk-transition: 400 "At most 500 registrations per call." (more than 500 ids, duplicates
//     counted; the LMS then removes duplicates). Ids naming no live row are counted in
//     not_found_count, not refused.
//   - dismiss-attention: 400 "Nothing puts this registration on the Needs attention queue." when
//     no detector picks the row, which includes a missing or superseded row (there is no 404).
//   - phases: 400 "Not one of the canonical phase names." (checked before the reason); 404 when
//     the canonical phase has no phase-state row (after the write was committed).
//   - courses: 400 "This course module has no credit registration configuration."
//   - 500 anything else (the LMS's own failures).
//
// What each writes (besides its audit row):
//
//   - transition, state_move: transition() with the Admin policy on the row as read, with
//     expected_from_state = that state: state, state_entered_at = clock_timestamp(),
//     error_code and error_message cleared, needs_admin_attention cleared, terminal_at set on
//     cancelled and cleared on ready_to_submit, the enrolment-check schedule kept for
//     ready_to_submit and cleared (source back to "schedule") for cancelled,
//     enrolment_check_claimed_until cleared, next_attempt_at = now(); exactly one event of kind
//     admin_action (from_state, to_state, message = reason, actor_user_id); pending supersessions
//     of rows waiting on this one abandoned (both targets abandon). Then, for ready_to_submit,
//     make_due_now_batch with source admin_request. Audit: transition_item, target
//     credit_registration, before/after state, details {"outcome"}, affected_row_count 1.
//   - transition, clear_needs_admin_attention: the flag cleared and one admin_action event; if the
//     flag was already down, nothing but the audit row, and outcome no_change.
//   - transition, check_now: one admin_action event and make_due_now_batch (next_attempt_at =
//     now() where it was later; enrolment_check_source = admin_request for no_usable_enrolment).
//   - bulk-transition: rows locked in id order; each judged with strictness
//     AnyExceptSubmissionUncertain, so resubmitting or cancelling a submission_uncertain row is
//     always skipped (check_now and clearing the flag are not); a superseded row is skipped as
//     "superseded". Each applied row as above (its own event); one audit row with details
//     {"action","credit_registration_ids","skipped"} and affected_row_count = applied_count.
//     applied_count counts a flag clear that found the flag down.
//   - requeue-retryable: every failed_retryable, live, unsuperseded row with next_attempt_at later
//     than now (narrowed to the course and module given) made due now, oldest due first, at most
//     5000. No events. Audit: requeue_batch, target course (or credit_registration when no
//     course), details {"course_id","course_module_id"}.
//   - dismiss-attention: the row's live dismissal soft-deleted and a new one written with the
//     reasons the row carries now, one admin_action event. Audit: dismiss_attention, details
//     {"attention_reasons"}.
//   - phases: pause sets paused_at = now(), paused_by_user_id, pause_reason; resume clears all
//     three; run-now sets next_run_at = now(). Audit: pause_phase / resume_phase / run_phase_now,
//     target phase with target_phase set, no target_id.
//   - courses: pause sets course_module_suotar_configurations.paused_at, paused_by_user_id,
//     pause_reason; resume clears them. Audit: pause_course_module / resume_course_module,
//     target course_module.
//
// Two things in the LMS as read that its team should know, since regdesk depends on them: the
// bulk-transition audit row and a requeue-retryable without course_id name no target_id with
// target_kind credit_registration, which the audit table's CHECK target_id_kind ((target_id IS
// NULL) = (target_kind = 'phase'), [60803375201]) refuses, so those calls would roll back and
// answer 400; and the stored transition() versions do not write state_changed_at or
// phase_started_at, which the migration that added them says move when the state or the timeline
// phase changes [71065364207].
//
// # Refusals
//
// RefusalCode values are ResubmissionRefusal's, snake_case: superseded, already_succeeded,
// submission_uncertain, submission_uncertain_too_recent, not_failed_permanent, still_in_pipeline,
// submission_pending, already_submitted, awaiting_confirmation, already_cancelled,
// nothing_to_check. Resubmit (ready_to_submit) is refused, in this order: superseded; a success
// state; submitting, awaiting_verification or partially_registered (already_submitted);
// submission_uncertain unless strictness Any; a sent row whose state does not allow a resend
// (already_submitted); not failed_permanent under OnlyFailedPermanent; pending, blocked,
// ready_to_submit, resolving_enrolment, checking_enrolment, no_usable_enrolment
// (still_in_pipeline); submission_uncertain before submitted_at + 24 h
// (submission_uncertain_too_recent); before resubmit_not_before (submission_pending). Cancel:
// superseded; a success state; cancelled (already_cancelled); submitting (already_submitted);
// awaiting_verification or partially_registered (awaiting_confirmation); submission_uncertain
// unless Any. Check now: superseded; otherwise nothing_to_check unless the row is
// awaiting_verification, partially_registered, submission_uncertain, no_usable_enrolment or
// failed_retryable. Clearing the flag: superseded only. The LMS compares times with its own
// application clock here (Utc::now()).
//
// # Acting as a person: what the LMS team is asked for
//
// The LMS authenticates these endpoints only through its browser session: the AuthUser extractor
// reads the actix session's "user" key [2465451563], and authorize_credit_registration_admin then
// requires Act::AdministrateCreditRegistrations on global permissions [71131224499]. Its only
// service credential (authorize_access_to_tmc_server's shared secret) acts as nobody, and the
// tokens of its OAuth provider (the OAuth and DPoP errors of [34341330933]) are not read by the
// AuthUser these handlers take, in the version read. regdesk cannot hold a person's LMS session (another
// origin, and the LMS signs people in through mooc.fi), and a shared service account would make
// the LMS's audit name the account instead of the person. So regdesk asks the LMS team for the
// smallest addition that lets the existing handlers run unchanged for a named user:
//
//  1. A service token, configured in the LMS (an environment secret of at least 32 random bytes,
//     off when unset), shared with regdesk as LMS_TOKEN.
//  2. On the credit-registration-admin endpoints only, a request carrying
//     "Authorization: Bearer <token>" is authenticated as the LMS user named by the header
//     "X-Acting-User-Id: <users.id>" (a uuid), instead of from the session; the session cookie is
//     not consulted for such a request.
//  3. The token is compared in constant time. A missing or wrong token, a missing or malformed
//     acting user, or a user that does not exist or is deleted, is 401 with the LMS's usual error
//     body, and nothing else runs.
//  4. The named user is then authorized exactly as a session user is:
//     authorize_credit_registration_admin, so a user without a live global admin or
//     credit_registration_admin role is 403.
//  5. The handler receives that user as its AuthUser, so every row it writes names that person:
//     the events' and audit rows' actor_user_id, the dismissal's dismissed_by_user_id, a paused
//     phase's or module's paused_by_user_id. actor_role stays "global_admin".
//
// The fake in lmsfake implements exactly this and nothing looser.
package lms
