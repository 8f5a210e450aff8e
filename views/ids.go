package views

// Element ids of the swappable regions. Handlers use them for HX-Retarget, tests as selectors.
const (
	IDMain        = "main"
	IDFlash       = "flash"
	IDQueueCounts = "queue-counts"
	IDQueueTable  = "queue-table"
	IDQueueFilter = "queue-filter"
)

// IDQueueResults is the queue's list region, swapped when a filter changes.
const IDQueueResults = "queue-results"

// IDLookup is the registration page's "Is it in Sisu?" region, swapped by a lookup; IDLookupSpinner
// is its busy indicator.
const (
	IDLookup        = "lookup"
	IDLookupSpinner = "lookup-spinner"
)

// IDTimeline is the registration page's history.
const IDTimeline = "timeline"

// IDActions is the registration page's hand-action panel, swapped by an action that failed and
// refreshed out of band by a lookup; IDBulkForm is the queue's bulk-selection form, which the
// row checkboxes join by their form attribute; IDAuditResults is the audit page's list.
const (
	IDActions      = "actions"
	IDBulkForm     = "bulk-form"
	IDAuditResults = "audit-results"
)

// IDSearchInput is the top bar's student search box; IDSearchResults is the dropdown its
// as-you-type results are swapped into.
const (
	IDSearchInput   = "student-search"
	IDSearchResults = "search-results"
)

// IDSinceAlert is the banner that says what changed since the alert a link came from.
const IDSinceAlert = "since-alert"

// IDHealthBanner is the every-page strip of firing alerts; IDHealthFiring the list of them on
// /alerts; IDSettingsMail the settings page's mail section.
const (
	IDHealthBanner = "health-banner"
	IDHealthFiring = "alerts-firing"
	IDSettingsMail = "settings-mail"
)

// IDMirrorBanner is every page's notice that the lists show an older ledger than the LMS has.
const IDMirrorBanner = "mirror-behind"

// IDSystemPhases, IDSystemModules and IDSystemRequeue are the System page's sections, each
// swapped by the answer to one of its controls.
const (
	IDSystemPhases  = "system-phases"
	IDSystemModules = "system-modules"
	IDSystemRequeue = "system-requeue"
)

// IDQueueViews is the queue's saved views; IDQueuePanel the side panel beside its list, where j/k
// and Enter open a registration without leaving the list.
const (
	IDQueueViews = "queue-views"
	IDQueuePanel = "queue-panel"
)

// IDDecision is the registration page's decision panel: where the row stands, the latest verdict
// and the recommended next step; a lookup redraws it out of band.
const IDDecision = "decision"

// IDBulkJobs is the list of background bulk applies on /bulk/jobs, refreshed while one runs.
const IDBulkJobs = "bulk-jobs"
