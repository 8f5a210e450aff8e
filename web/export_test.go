package web

// SafeNext exposes the open-redirect guard to the external tests.
var SafeNext = safeNext
