package memory

import (
	"strconv"
	"strings"
)

// Status reasons name the memories a change came from, never the memory they are
// recorded on: a reason that names its own memory tells a reader nothing, and a
// DISPUTED memory's reason must point at the other side.

// disputeReasons gives each member its status reason: the new memory m names the
// memories it contradicts (ids), every other member names m.
func disputeReasons(m string, ids, members []string) []string {
	out := make([]string, len(members))
	for i, id := range members {
		out[i] = "contradicted by " + m
		if id == m {
			out[i] = "contradicts " + listIDs(ids)
		}
	}
	return out
}

// memberReason is the status reason of member id for a change decided in a
// conflict of members: a resolution names its target ("keep:<id>"), so on the
// target itself that id is replaced by the members it was in conflict with.
func memberReason(reason, id string, members []string) string {
	if !strings.Contains(reason, id) {
		return reason
	}
	var others []string
	for _, m := range members {
		if m != id {
			others = append(others, m)
		}
	}
	self := "this memory"
	if len(others) > 0 {
		self += " (in conflict with " + listIDs(others) + ")"
	}
	return strings.ReplaceAll(reason, id, self)
}

// maxListedIDs bounds the ids a reason lists: a large conflict would otherwise
// write every member into every member's reason.
const maxListedIDs = 3

// listIDs joins ids, the first maxListedIDs of them and a count of the rest.
func listIDs(ids []string) string {
	if len(ids) <= maxListedIDs {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:maxListedIDs], ", ") + " and " + strconv.Itoa(len(ids)-maxListedIDs) + " more"
}
