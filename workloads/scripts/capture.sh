#!/bin/sh
# Records the timers of this Linux machine while a load runs: the kernel's
# timer_list events (timer:timer_start, timer_cancel, timer_expire_entry) and
# hrtimer events (timer:hrtimer_start, hrtimer_cancel, hrtimer_expire_entry),
# as the raw ftrace text that `workloads::import_ftrace` reads. `make capture`
# calls this; every setting comes from the environment:
#
#   CAPTURE_SECONDS  how long to wait when LOAD is empty (default 30); with a
#                    LOAD, the expected length of the load, which sizes the
#                    buffer (the load itself decides when the capture ends)
#   LOAD             a shell command to run while recording (run with sh -c);
#                    empty: record the machine as it is for CAPTURE_SECONDS
#   CAPTURE_OUT      the output file (default target/capture/trace.txt); a
#                    name ending in .gz is written compressed
#   CAPTURE_NOTE     a line for the header about the conditions, e.g. what
#                    else was running (empty: none)
#   TRACEFS          where tracefs is mounted (default /sys/kernel/tracing)
#   BUFFER_KB        the per-CPU ring buffer in KiB (default: sized from
#                    CAPTURE_SECONDS, see below)
#
# It must run as root, and refuses (exit 2) with the fix when it is not or
# when there is no tracefs. Whatever happens (the load fails, the user presses
# Ctrl-C, the script is killed with TERM), an EXIT trap turns tracing off and
# disables the six events again, and restores the trace clock and the buffer
# size it found; the script then reads them back and fails if any is still on.
#
# The trace clock is set to `mono` for the capture, so that a timestamp is on
# the same clock as most hrtimers' `expires` (CLOCK_MONOTONIC); the header
# says so and the importer relies on it for hrtimers.
#
# The file starts with a header of `#` comments (kernel release, HZ, CPUs,
# the load, start and end in UTC, lost events), then the kernel's own text.
set -u

me="capture"
tracefs=${TRACEFS:-/sys/kernel/tracing}
default_tracefs=/sys/kernel/tracing
seconds=${CAPTURE_SECONDS:-30}
load=${LOAD:-}
out=${CAPTURE_OUT:-target/capture/trace.txt}
note=${CAPTURE_NOTE:-}
events="timer_start timer_cancel timer_expire_entry hrtimer_start hrtimer_cancel hrtimer_expire_entry"
# The ring buffer holds binary records of about 40 to 70 bytes. A busy 2-core
# machine under a network load writes up to about 50,000 timer events a second
# per CPU, so 4 MiB per CPU and second leaves room; the buffer is never larger
# than a quarter of the available memory over the CPUs, nor smaller than 8 MiB.
kb_per_second=4096
min_buffer_kb=8192

die() {
    echo "$me: $*" >&2
    exit 2
}

case $seconds in
'' | *[!0-9]*) die "CAPTURE_SECONDS (make's SECONDS) is \"$seconds\"; it must be a whole number of seconds, e.g. SECONDS=30" ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    die "enabling kernel trace events needs root; run it as root, e.g. sudo make capture"
fi

if [ ! -e "$tracefs/tracing_on" ]; then
    if [ "$tracefs" = "$default_tracefs" ] && [ -d "$tracefs" ]; then
        mount -t tracefs nodev "$tracefs" 2>/dev/null
    fi
    if [ ! -e "$tracefs/tracing_on" ]; then
        die "no tracefs at $tracefs; mount it with \`mount -t tracefs nodev $default_tracefs\` (the kernel needs CONFIG_FTRACE), or set TRACEFS to where it is mounted"
    fi
fi

for event in $events; do
    [ -e "$tracefs/events/timer/$event/enable" ] ||
        die "this kernel has no event timer:$event in $tracefs/events/timer; it needs CONFIG_TRACEPOINTS and the timer events"
done

cpus=$(ls -d "$tracefs"/per_cpu/cpu* 2>/dev/null | wc -l)
[ "$cpus" -gt 0 ] || cpus=$(getconf _NPROCESSORS_ONLN)

# HZ: the kernel's configuration says it; without one, it is measured as the
# jiffies /proc/timer_list shows advancing over the capture, divided by its
# length and rounded to the nearest HZ Linux offers.
hz=""
hz_source=""
release=$(uname -r)
if [ -r "/boot/config-$release" ]; then
    hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$release")
    hz_source="CONFIG_HZ in /boot/config-$release"
elif [ -r /proc/config.gz ]; then
    hz=$(gzip -dc /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
    hz_source="CONFIG_HZ in /proc/config.gz"
fi

jiffies_now() {
    sed -n 's/^jiffies: *//p' /proc/timer_list 2>/dev/null | head -n 1
}

if [ -n "${BUFFER_KB:-}" ]; then
    buffer_kb=$BUFFER_KB
else
    available_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
    buffer_kb=$((seconds * kb_per_second))
    [ "$buffer_kb" -ge "$min_buffer_kb" ] || buffer_kb=$min_buffer_kb
    cap_kb=$((available_kb / 4 / cpus))
    [ "$buffer_kb" -le "$cap_kb" ] || buffer_kb=$cap_kb
fi

case $out in
*.gz) raw="${out%.gz}.part" ;;
*) raw="$out.part" ;;
esac
mkdir -p "$(dirname "$out")" || die "cannot create the folder of CAPTURE_OUT=$out"

old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$tracefs/trace_clock")
old_buffer_kb=$(cat "$tracefs/buffer_size_kb" | sed 's/ .*//')

# Everything below runs with the trap armed: tracing goes off and the events
# are disabled on every way out.
cleanup() {
    echo 0 >"$tracefs/tracing_on"
    for event in $events; do
        echo 0 >"$tracefs/events/timer/$event/enable"
    done
}
restore() {
    # Setting the clock clears the buffer, and shrinking it frees its
    # memory, so both wait until the trace has been read.
    [ -z "$old_clock" ] || echo "$old_clock" >"$tracefs/trace_clock"
    [ -z "$old_buffer_kb" ] || echo "$old_buffer_kb" >"$tracefs/buffer_size_kb" 2>/dev/null
}
# Called by the EXIT trap with no argument, or by the INT and TERM traps with
# the status to exit with (dash does not run the EXIT trap after `exit` in a
# signal's trap, so those call this directly).
on_exit() {
    status=${1:-$?}
    trap - EXIT INT TERM
    # A load still running (the script was interrupted) is stopped too.
    [ -z "$child" ] || kill "$child" 2>/dev/null
    cleanup
    restore
    rm -f "$raw"
    still_on=""
    [ "$(cat "$tracefs/tracing_on")" = 0 ] || still_on="tracing_on"
    for event in $events; do
        [ "$(cat "$tracefs/events/timer/$event/enable")" = 0 ] || still_on="$still_on timer:$event"
    done
    if [ -n "$still_on" ]; then
        echo "$me: could not turn off: $still_on; run \`echo 0 > $tracefs/tracing_on\` and \`echo 0 > $tracefs/events/timer/enable\`" >&2
        exit 1
    fi
    exit "$status"
}
child=""
trap on_exit EXIT
trap 'on_exit 130' INT
trap 'on_exit 143' TERM

echo 0 >"$tracefs/tracing_on"
echo "$buffer_kb" >"$tracefs/buffer_size_kb" || die "cannot size the buffer to $buffer_kb KiB per CPU; set BUFFER_KB lower"
echo mono >"$tracefs/trace_clock" || die "this kernel has no \`mono\` trace clock"
echo >"$tracefs/trace"
for event in $events; do
    echo 1 >"$tracefs/events/timer/$event/enable"
done

start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
start_ns=$(date +%s%N)
start_jiffies=$(jiffies_now)
echo 1 >"$tracefs/tracing_on"
# The load runs in the background and is waited for, so that a signal to
# this script is handled at once rather than when the load ends.
if [ -n "$load" ]; then
    echo "$me: recording while \`$load\` runs ..." >&2
    sh -c "$load" &
else
    echo "$me: recording the machine for $seconds s ..." >&2
    sleep "$seconds" &
fi
child=$!
wait "$child"
load_status=$?
child=""
echo 0 >"$tracefs/tracing_on"
end_jiffies=$(jiffies_now)
end_ns=$(date +%s%N)
end=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cleanup

duration_ms=$(((end_ns - start_ns) / 1000000))
if [ -z "$hz" ] && [ -n "$start_jiffies" ] && [ -n "$end_jiffies" ] && [ "$duration_ms" -gt 0 ]; then
    measured=$(((end_jiffies - start_jiffies) * 1000 / duration_ms))
    hz=100
    for candidate in 250 300 1000; do
        previous_gap=$((measured - hz))
        [ "$previous_gap" -ge 0 ] || previous_gap=$((-previous_gap))
        gap=$((measured - candidate))
        [ "$gap" -ge 0 ] || gap=$((-gap))
        [ "$gap" -ge "$previous_gap" ] || hz=$candidate
    done
    hz_source="measured: jiffies in /proc/timer_list advanced at $measured a second over the capture"
fi
[ -n "$hz" ] || { hz=unknown; hz_source="no kernel configuration and no /proc/timer_list"; }

overrun=0
dropped=0
for stats in "$tracefs"/per_cpu/cpu*/stats; do
    n=$(sed -n 's/^overrun: *//p' "$stats")
    overrun=$((overrun + ${n:-0}))
    n=$(sed -n 's/^dropped events: *//p' "$stats")
    dropped=$((dropped + ${n:-0}))
done
lost=$((overrun + dropped))

{
    echo "# timerbench capture: kernel timer events as raw ftrace text (workloads/scripts/capture.sh)"
    echo "# kernel: $release"
    echo "# HZ: $hz ($hz_source)"
    echo "# cpus: $cpus"
    if [ -n "$load" ]; then
        echo "# load: $load"
        echo "# load exit status: $load_status"
    else
        echo "# load: none (the machine as it is, for $seconds s)"
    fi
    [ -z "$note" ] || echo "# note: $note"
    echo "# start: $start"
    echo "# end: $end"
    echo "# duration: $duration_ms ms"
    echo "# trace_clock: mono"
    echo "# buffer_size_kb: $buffer_kb per CPU"
    echo "# events: timer:$(echo "$events" | sed 's/ / timer:/g')"
    echo "# lost events: $lost (overrun $overrun, dropped $dropped)"
    cat "$tracefs/trace"
} >"$raw" || die "cannot write $raw"
events_read=$(grep -vc '^#' "$raw")
case $out in
*.gz) gzip -9nc "$raw" >"$out" || die "cannot write $out" ;;
*) mv "$raw" "$out" || die "cannot write $out" ;;
esac
echo "$me: wrote $out: $events_read events, $lost lost, HZ $hz" >&2
if [ "$lost" -gt 0 ]; then
    echo "$me: $lost events were lost; raise BUFFER_KB (now $buffer_kb per CPU) or shorten the load" >&2
fi
if [ -n "$load" ] && [ "$load_status" -ne 0 ]; then
    echo "$me: the load exited with status $load_status; the trace was written all the same" >&2
fi
exit 0
