# jsonflat.awk -- flatten JSON into one line per scalar: REC <TAB> PATH <TAB> VALUE
#
# Design note: the experiment runner reads three kinds of JSON (qwbots'
# --json report, qwd's "qwd-stats/1" lines, udpecho's report) with POSIX
# awk only, so it needs no jq.  This is a small tokenizer with a stack,
# not a validator: it reads any sequence of top-level JSON values (one
# file, or JSON lines), keeps its state across input lines, and prints
# every number, string, true/false/null with its path: object keys and
# array indices (from 0) joined by ".", e.g.
#     1	totals.response_time_ms.p99	0.059
#     3	phase_ns.idle	288848645
# REC counts the top-level values from 1 (the interval number of a stats
# file).  Strings are printed without their quotes; escapes are left as
# they are (the runner never needs them decoded).  Malformed input gives
# garbage paths, never a crash or a hang: every step consumes input.
# Runs under mawk, gawk and busybox awk.

BEGIN {
	OFS = "\t"
	depth = 0
	rec = 0
}

function path(    p, i) {
	p = ""
	for (i = 1; i <= depth; i++)
		p = p (i > 1 ? "." : "") (kind[i] == "o" ? key[i] : idx[i])
	return p
}

function emit(v) {
	if (depth == 0)
		return
	print rec, path(), v
}

{
	s = $0
	while (s != "") {
		c = substr(s, 1, 1)
		if (c == " " || c == "\t" || c == "\r") {
			s = substr(s, 2)
		} else if (c == "{" || c == "[") {
			if (depth == 0)
				rec++
			depth++
			kind[depth] = (c == "{") ? "o" : "a"
			idx[depth] = 0
			key[depth] = ""
			expkey[depth] = (c == "{")
			s = substr(s, 2)
		} else if (c == "}" || c == "]") {
			if (depth > 0)
				depth--
			s = substr(s, 2)
		} else if (c == ",") {
			if (depth > 0) {
				if (kind[depth] == "o")
					expkey[depth] = 1
				else
					idx[depth]++
			}
			s = substr(s, 2)
		} else if (c == ":") {
			if (depth > 0)
				expkey[depth] = 0
			s = substr(s, 2)
		} else if (c == "\"") {
			if (match(s, /^"([^"\\]|\\.)*"/)) {
				v = substr(s, 2, RLENGTH - 2)
				s = substr(s, RLENGTH + 1)
			} else {	# unterminated: the rest of the line
				v = substr(s, 2)
				s = ""
			}
			if (depth > 0 && kind[depth] == "o" && expkey[depth])
				key[depth] = v
			else
				emit(v)
		} else if (match(s, /^[-+0-9.eE]+|^true|^false|^null/)) {
			emit(substr(s, 1, RLENGTH))
			s = substr(s, RLENGTH + 1)
		} else {
			s = substr(s, 2)	# not JSON: skipped
		}
	}
}
