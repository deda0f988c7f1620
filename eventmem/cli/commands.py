"""The ``eventmem`` command: operate and debug a store from the shell.

The store is ``--store``, else ``$EVENTMEM_STORE``, else ``./eventmem-store``. Every command takes
``--json`` for machine-readable output. Exit codes: 0 ok, 1 a check failed (verify, audit), 2 bad
usage or input, 3 a store error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import lmdb
import msgspec

import eventmem
from eventmem.cli.render import (
    describe_event,
    explain_history,
    render_audit,
    render_boxes,
    render_conflicts,
    render_entities,
    render_entity,
    render_hits,
    render_hot,
    render_links,
    render_memory,
    render_memory_lines,
    render_neighbors,
    render_plan,
    render_stats,
    render_versions,
)
from eventmem.clock import from_micros, to_micros
from eventmem.errors import EventmemError, InvalidInputError, StoreError

# What only some commands need (the log, replay, the query planner, numpy under them) is imported
# inside those commands: ``eventmem --help`` and a mistyped command answer without loading it.


def _parse_time(value: str) -> datetime:
    """ISO 8601; a time without a zone is taken as UTC (the CLI's one convenience)."""
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(f"not an ISO 8601 time: {value!r}") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(msgspec.to_builtins(data), ensure_ascii=False, sort_keys=True))
    else:
        print(text)


def _store(args: argparse.Namespace) -> str:
    return args.store or os.environ.get("EVENTMEM_STORE") or "eventmem-store"


def _open(args: argparse.Namespace, *, readonly: bool = False,
          create: bool = False) -> eventmem.Engine:
    """Open the store; only ``create`` (remember, demo) may make a new one: any other command
    on a mistyped path would answer from (and leave behind) an empty store."""
    path = _check_path(_store(args))
    if not create and not os.path.exists(os.path.join(path, "data.mdb")):
        raise StoreError(f"no store at {path}; create one with `eventmem remember` or `demo`")
    return eventmem.open(path, readonly=readonly)


def _check_path(path: str) -> str:
    """Refuse a store path that is, or lies under, something other than a directory."""
    for place in (Path(path), *Path(path).parents):
        if place.exists():
            if not place.is_dir():
                where = "" if place == Path(path) else f" ({place} is a file)"
                raise StoreError(f"the store path {path} is not a directory{where}")
            break
    return path


# -- commands ------------------------------------------------------------------------------------


def cmd_remember(args: argparse.Namespace) -> int:
    """Remember one text (``-`` reads it from stdin); prints the gate's decision, or why the
    input was rejected."""
    text = sys.stdin.read() if args.text == "-" else args.text  # `-`: the text comes piped in
    with _open(args, create=True) as mem:
        result = mem.remember(
            text, namespace=args.namespace, kind=args.kind, source=args.source,
            importance=args.importance,
            valid_from=_parse_time(args.valid_from) if args.valid_from else None,
            valid_until=_parse_time(args.valid_until) if args.valid_until else None,
            pinned=args.pin, tags=args.tag, metadata=_metadata(args.metadata, "--metadata"),
            session=args.session, tier=args.tier,
        )
    if result.memory_id is None:  # rejected: no memory, say why instead
        line = f"{result.action} (rule={result.rule}, seq {result.seq}): {result.reason}"
    else:
        line = f"{result.action} {result.memory_id} (seq {result.seq})"
    _emit(args, result, line)
    return 0


def _metadata(value: str | None, what: str) -> dict[str, Any] | None:
    """A JSON object given on the command line (``--metadata``, ``--filter``)."""
    if value is None:
        return None
    try:
        data = json.loads(value)
    except ValueError:
        raise InvalidInputError(f"{what} is not JSON: {value!r}") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{what} must be a JSON object, got {value!r}")
    return data


def cmd_update(args: argparse.Namespace) -> int:
    """Replace a memory's text with the caller's new version (``-`` reads it from stdin): a
    supersession by the caller, the old version kept in the history."""
    text = sys.stdin.read() if args.text == "-" else args.text
    with _open(args) as mem:
        result = mem.update(args.memory_id, text,
                            metadata=_metadata(args.metadata, "--metadata"))
    if result.memory_id == args.memory_id:
        line = f"{result.action}: {args.memory_id} already says that (nothing recorded)"
    else:
        line = (f"{result.action} {args.memory_id} by {result.memory_id} (seq {result.seq})")
    _emit(args, result, line)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a namespace's current memories as JSON lines (to a file, or stdout). Read-only,
    so it runs while an agent writes."""
    to_stdout = args.out in (None, "-")
    with _open(args, readonly=True) as mem:
        count = mem.export_memories(sys.stdout if to_stdout else args.out,
                                    namespace=args.namespace,
                                    include_archived=args.include_archived)
    if to_stdout:  # stdout holds the lines: the count goes to stderr
        print(f"exported {count} memories", file=sys.stderr)
    else:
        _emit(args, {"exported": count, "path": args.out},
              f"exported {count} memories of {args.namespace!r} to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read memories exported by ``export`` (a file, or ``-`` for stdin), keeping their times;
    those the namespace holds already are skipped, so an import can be run again."""
    source = sys.stdin if args.file == "-" else args.file
    with _open(args, create=True) as mem:
        results = mem.import_memories(source, namespace=args.namespace, workers=args.workers)
    counts: dict[str, int] = {}
    for result in results:
        counts[result.action] = counts.get(result.action, 0) + 1
    summary = ", ".join(f"{n} {action}" for action, n in sorted(counts.items()))
    _emit(args, {"results": results, "counts": counts},
          f"imported {len(results)} lines: {summary or 'nothing'}")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    """Recall memories for a query; ``--explain`` adds how the query was understood and every
    hit's signals. Read-only, so it answers while an agent writes, and records nothing;
    ``--record`` takes the writer lock to record the recall as an access."""
    from eventmem.recall.plan import plan as query_plan
    with _open(args, readonly=not args.record) as mem:
        valid_at = _parse_time(args.valid_at) if args.valid_at else None
        plan = query_plan(args.query, to_micros(mem.now()))
        hits = mem.recall(args.query, namespace=args.namespace, k=args.k, valid_at=valid_at,
                          profile=args.profile, filters=_metadata(args.filter, "--filter"),
                          session=args.session, include_hot=args.include_hot,
                          box_context=args.box_context)
    text = render_hits(hits, explain=args.explain)
    _emit(args, hits, f"{render_plan(plan)}\n{text}" if args.explain else text)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    """Show one memory as the store holds it now."""
    with _open(args, readonly=True) as mem:
        memory = mem.get(args.memory_id)
    _emit(args, memory, render_memory(memory))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """A memory's whole life in plain language (``--json``: the events with their evidence)."""
    with _open(args, readonly=True) as mem:
        entries = mem.history(args.memory_id)
        memory = mem.get(args.memory_id)
    text = memory.text if memory.text is not None else "(text erased)"
    header = (f"{memory.memory_id} [{memory.namespace}] {memory.kind}, {memory.status}, "
              f"tier {memory.tier}: {text}")
    _emit(args, entries, "\n".join([header, *explain_history(memory.memory_id, entries)]))
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    """Print the event log from ``--start``, at most ``--limit`` events, one line each."""
    from eventmem.events import event_tag
    with _open(args, readonly=True) as mem:
        stop = None if args.limit is None else args.start + args.limit - 1
        rows = [(seq, event) for seq, event in mem.events(args.start, stop)]
        text = "\n".join(_trace_line(mem.store, seq, ev) for seq, ev in rows) or "(empty log)"
    if args.json:  # JSON lines: a long log streams into `jq`, `head` or a line-based tool
        for seq, ev in rows:
            print(json.dumps({"seq": seq, "type": event_tag(ev), **msgspec.to_builtins(ev)},
                             ensure_ascii=False, sort_keys=True))
    else:
        print(text)
    return 0


def _trace_line(log: Any, seq: int, event: Any) -> str:
    from eventmem.events import event_tag
    from replay.history import event_details
    details = event_details(log, event)
    ns = f" [{event.namespace}]" if event.namespace else ""
    return (f"{seq:>8}  {from_micros(event.at).isoformat()}{ns}  "
            f"{describe_event(event_tag(event), details)}")


def cmd_replay(args: argparse.Namespace) -> int:
    """Rebuild the projections from the log up to a seq or a time, printing each event with
    ``--trace``; reports what the store held at that point."""
    from eventmem.events import event_tag
    from replay.rebuild import rebuild

    with _open(args, readonly=True) as mem:
        log = mem.store
        until = _until_seq(log, args.until)
        traced = []
        for seq, event in log.read(1, until):
            if args.trace:
                traced.append(_trace_line(log, seq, event) if not args.json
                              else {"seq": seq, "type": event_tag(event),
                                    **msgspec.to_builtins(event)})
        views = rebuild(log, until=until)
    summary = {"until_seq": views.seq, "memories": len(views.state.memories),
               "active": sum(r.status == "active" for r in views.state.memories.values()),
               "digests": views.digests()}
    if args.json:
        _emit(args, {"summary": summary, "trace": traced}, "")
    else:
        for line in traced:
            print(line)
        print(f"replayed to seq {views.seq}: {summary['memories']} memories "
              f"({summary['active']} active)")
    return 0


def _until_seq(log: Any, value: str | None) -> int:
    head = log.head().seq
    if value is None:
        return head
    if value.lstrip("-").isdigit():
        return _seq_upto(value, head)
    return log.seq_at_time(to_micros(_parse_time(value)))


def _seq_upto(value: str, head: int) -> int:
    """A seq given with --until: 0 to the head (past it is a typo or another store, as for
    ``as-of``; silently stopping at the head would report the head as what was asked for)."""
    seq = int(value)
    if not 0 <= seq <= head:
        raise InvalidInputError(f"--until takes a seq from 0 to the head ({head}) or an ISO 8601 "
                                f"time, got {value!r}")
    return seq


def cmd_as_of(args: argparse.Namespace) -> int:
    """The store as it stood at a seq or a time: a recall there when a query is given, else its
    stats."""
    with _open(args, readonly=True) as mem:
        if args.at.lstrip("-").isdigit():  # a seq (a negative one is refused as such)
            view = mem.as_of(seq=int(args.at))
        else:
            view = mem.as_of(at=_parse_time(args.at))
        if args.query:
            hits = view.recall(args.query, namespace=args.namespace, k=args.k)
            _emit(args, hits, render_hits(hits, explain=False))
        else:
            stats = view.stats()
            _emit(args, stats, render_stats(stats))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check the hash chain, the blobs and the projections; exit 1 when anything is wrong."""
    with _open(args, readonly=True) as mem:
        report = mem.verify()
    lines = [f"{'OK' if report.ok else 'FAILED'}: {report.events_checked} events, "
             f"{report.blobs_checked} blobs, head {report.head_seq} {report.head_hash[:16]}"]
    lines += [f"  seq {f.seq}: [{f.check}] {f.message}" for f in report.findings]
    _emit(args, report, "\n".join(lines))
    return 0 if report.ok else 1


def cmd_audit(args: argparse.Namespace) -> int:
    """Re-derive every recorded decision and list those that come out differently."""
    if args.until is not None and not args.until.lstrip("-").isdigit():
        raise InvalidInputError(f"--until takes a seq, got {args.until!r}")
    with _open(args, readonly=True) as mem:
        until = None if args.until is None else _seq_upto(args.until, mem.head().seq)
        report = mem.audit(until=until, workers=args.workers)
    _emit(args, report, render_audit(report))
    return 0 if report.ok else 1


def cmd_stats(args: argparse.Namespace) -> int:
    """Counts and sizes of the store and its log, and the head hash."""
    with _open(args, readonly=True) as mem:
        stats = {**mem.stats(), "store": mem.path, "log": mem.store.stats(),
                 "head_hash": mem.head().hash.hex()}
    _emit(args, stats, render_stats(stats))
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    """Run maintenance at ``--now`` (default: the clock) and list what it recorded; with
    ``--dry-run``, what it would record (read-only: nothing is appended, no writer needed)."""
    with _open(args, readonly=args.dry_run) as mem:
        report = mem.consolidate(now=_parse_time(args.now) if args.now else None,
                                 dry_run=args.dry_run)
    verb = "would consolidate" if report.dry_run else "consolidated"
    lines = [f"{verb} at {report.now.isoformat()}: "
             f"{len(report.status_changes)} status changes, {len(report.tier_changes)} tier "
             f"changes, {len(report.invalidated)} expired, {len(report.rehearsed)} rehearsed, "
             f"{len(report.dormant)} dormant, {len(report.consolidated)} clusters merged, "
             f"{len(report.summarized)} summaries, {report.pruned_relations} relations pruned"]
    lines += [f"  {c.memory_id} {c.from_status} -> {c.to_status} ({c.reason})"
              for c in report.status_changes]
    lines += [f"  {c.memory_id} tier {c.from_tier} -> {c.to_tier} ({c.reason})"
              for c in report.tier_changes]
    lines += [f"  {mid} expired" for mid in report.invalidated]
    lines += [f"  {c.memory_id} rehearsed (retention {c.retention:.3f})" for c in report.rehearsed]
    lines += [f"  {c.memory_id} dormant ({c.reason})" for c in report.dormant]
    lines += [f"  {c.memory_id} consolidates {', '.join(c.members)}" for c in report.consolidated]
    lines += [f"  {c.memory_id} summarizes {c.members} {c.kind} memories"
              for c in report.summarized]
    if report.dry_run:
        lines.append("(dry run: nothing was recorded)")
    _emit(args, report, "\n".join(lines))
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    """Erase one memory's content (and what was derived from it) or a whole namespace's."""
    if args.namespace is not None and not args.yes:
        raise InvalidInputError(f"erasing namespace {args.namespace!r} removes every memory in "
                                "it for good; add --yes to confirm")
    with _open(args) as mem:
        done = mem.erase(memory_id=args.memory, namespace=args.namespace, reason=args.reason)
    if not done.memory_ids:
        text = "nothing to erase (already erased)"
    else:
        text = (f"erased {len(done.memory_ids)} memories ({len(done.cascaded)} derived) and "
                f"{done.contents_removed} texts (seqs {', '.join(map(str, done.seqs))}); run "
                "`eventmem compact` to remove the freed bytes from the file")
    _emit(args, done, text)
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    """Rewrite the store file without its free pages; prints its size before and after."""
    with _open(args) as mem:
        before, after = mem.compact()
    _emit(args, {"before": before, "after": after},
          f"compacted {_store(args)}: {before} -> {after} bytes")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """Forget a memory: it is deleted by an event (its history stays; erase removes text)."""
    with _open(args) as mem:
        already = mem.get(args.memory_id).status == "deleted"
        seq = mem.forget(args.memory_id, reason=args.reason)
    text = (f"{args.memory_id} was already forgotten (seq {seq})" if already
            else f"forgot {args.memory_id} (seq {seq})")
    _emit(args, {"memory_id": args.memory_id, "seq": seq, "changed": not already}, text)
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    """Pin a memory (exempt from forgetting), or with ``unpin`` let it be forgotten again."""
    pinned = args.command == "pin"
    with _open(args) as mem:
        already = mem.get(args.memory_id).pinned == pinned
        seq = mem.pin(args.memory_id) if pinned else mem.unpin(args.memory_id)
    verb = "pinned" if pinned else "unpinned"
    text = (f"{args.memory_id} was already {verb} (seq {seq})" if already
            else f"{verb} {args.memory_id} (seq {seq})")
    _emit(args, {"memory_id": args.memory_id, "pinned": pinned, "seq": seq,
                 "changed": not already}, text)
    return 0


def cmd_done(args: argparse.Namespace) -> int:
    """Mark a plan or commitment done: it leaves recall, and is archived 90 days later."""
    with _open(args) as mem:
        already = mem.get(args.memory_id).done_at is not None
        seq = mem.resolve_commitment(args.memory_id)
    text = (f"{args.memory_id} was already done (seq {seq})" if already
            else f"{args.memory_id} done (seq {seq})")
    _emit(args, {"memory_id": args.memory_id, "seq": seq, "changed": not already}, text)
    return 0


def cmd_touch(args: argparse.Namespace) -> int:
    """Record that the agent used a memory: an access, restoring its retention."""
    with _open(args) as mem:
        seq = mem.touch(args.memory_id)
        memory = mem.get(args.memory_id)
    _emit(args, {"memory_id": args.memory_id, "seq": seq, "retention": memory.retention,
                 "stability": memory.stability},
          f"touched {args.memory_id} (seq {seq}): retention {memory.retention:.3f}, "
          f"stability {memory.stability:.1f} days")
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    """Say whether a memory helped; prints its new utility."""
    useful: bool | float = args.target if args.target is not None else not args.not_useful
    with _open(args) as mem:
        utility = mem.feedback(args.memory_id, useful=useful)
    _emit(args, {"memory_id": args.memory_id, "utility": utility},
          f"feedback on {args.memory_id}: utility now {utility:.3f}")
    return 0


def cmd_conflicts(args: argparse.Namespace) -> int:
    """The contradictions the write gate found in a namespace (open ones by default)."""
    status = None if args.status == "all" else args.status
    with _open(args, readonly=True) as mem:
        found = mem.conflicts(namespace=args.namespace, status=status)
    _emit(args, found, render_conflicts(found))
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    """Settle an open conflict by a strategy; the loser is superseded, not deleted."""
    with _open(args) as mem:
        result = mem.resolve(args.conflict_id, strategy=args.strategy)
    _emit(args, result, f"conflict {args.conflict_id} settled by {args.strategy}: "
                        f"{result.memory_id} holds the answer (seq {result.seq})")
    return 0


def cmd_hot(args: argparse.Namespace) -> int:
    """The always-relevant memories of a namespace, best first."""
    with _open(args, readonly=True) as mem:
        found = mem.hot(namespace=args.namespace, k=args.k)
    _emit(args, found, render_hot(found))
    return 0


def cmd_boxes(args: argparse.Namespace) -> int:
    """A namespace's memory boxes (of one session, or one trace), in the order they opened."""
    with _open(args, readonly=True) as mem:
        if args.trace is not None and args.session is None:
            found = mem.trace(args.trace, namespace=args.namespace)
        else:
            found = mem.boxes(namespace=args.namespace, session=args.session,
                              trace_id=args.trace)
    _emit(args, found, render_boxes(found))
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    """What to put in an agent's prompt for a query, within a token budget. Read-only, as
    ``recall`` is: nothing is recorded."""
    with _open(args, readonly=True) as mem:
        text = mem.context(args.query, namespace=args.namespace, k=args.k,
                           budget_tokens=args.budget_tokens,
                           valid_at=_parse_time(args.valid_at) if args.valid_at else None,
                           profile=args.profile, filters=_metadata(args.filter, "--filter"))
    _emit(args, {"context": text}, text or "(nothing relevant)")
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    """The knowledge graph of a namespace: its entities, one entity's profile, the entities
    within some hops of one, the memories naming one, or one memory's links."""
    ns = args.namespace
    data: Any
    with _open(args, readonly=True) as mem:
        graph = mem.graph
        if args.graph_command == "entities":
            entities = graph.entities(namespace=ns, type=args.type)
            data, text = entities, render_entities(entities)
        elif args.graph_command == "entity":
            entity = graph.entity(args.name, namespace=ns)
            data, text = entity, render_entity(entity)
        elif args.graph_command == "neighbors":
            found = graph.neighbors(args.name, namespace=ns, hops=args.hops,
                                    relation_types=args.relation, entity_types=args.entity_type,
                                    limit=args.limit)
            data, text = found, render_neighbors(found)
        elif args.graph_command == "memories":
            ids = graph.memories(args.name, namespace=ns)
            data, text = ids, "\n".join(ids) or "(no memories)"
        else:
            links = graph.links(args.memory_id, namespace=ns)
            data, text = links, render_links(links)
    _emit(args, data, text)
    return 0


def cmd_timeline(args: argparse.Namespace) -> int:
    """Every version of a fact (a memory's chain of supersessions), or every memory naming an
    entity, oldest first, with valid and known intervals."""
    if (args.memory_id is None) == (args.entity is None):
        raise InvalidInputError("timeline takes a memory id or --entity NAME (one of them)")
    with _open(args, readonly=True) as mem:
        found = mem.timeline(args.memory_id, entity=args.entity, namespace=args.namespace)
    _emit(args, found, render_versions(found))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """The memories, filtered, in creation order, a page at a time; prints the cursor of the
    next page when there is one."""
    with _open(args, readonly=True) as mem:
        # One more than the page: whether a next page exists, without a second call.
        found = list(mem.memories(
            namespace=args.namespace, status=args.status, kind=args.kind, tags=args.tag,
            since=_parse_time(args.since) if args.since else None,
            until=_parse_time(args.until) if args.until else None,
            filters=_metadata(args.filter, "--filter"), limit=args.limit + 1,
            cursor=args.cursor))
    page = found[:args.limit]
    cursor = page[-1].memory_id if len(found) > args.limit else None
    text = render_memory_lines(page) or "(no memories)"
    if cursor is not None:
        text += f"\n(more: --cursor {cursor})"
    _emit(args, {"memories": page, "next_cursor": cursor}, text)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the demo into the store; refuses one that holds other namespaces' memories, since the
    log is immutable and the sample conversation could never be taken out again."""
    from eventmem.cli.demo import NAMESPACE, run_demo

    path = _check_path(_store(args))
    if os.path.exists(os.path.join(path, "data.mdb")):
        # The log is immutable: a demo run into a store that holds real memories ($EVENTMEM_STORE
        # set for an agent) would leave its sample conversation there for good.
        with eventmem.open(path, readonly=True) as mem:
            others = sorted(set(mem.stats()["by_namespace"]) - {NAMESPACE})
        if others:
            raise InvalidInputError(
                f"{path} holds memories of other namespaces ({', '.join(others[:3])}); the demo "
                "writes a sample conversation into its store: give it a new one with --store")
    return run_demo(path, as_json=args.json)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the store over HTTP (a JSON API and MCP at /mcp) until interrupted."""
    from eventmem.serve.http import serve
    from eventmem.serve.operations import Limits
    path = _check_path(_store(args))
    serve(path, host=args.host, port=args.port, tokens_path=args.tokens,
          limits=Limits(max_body=args.max_body, max_k=args.max_k), mcp=not args.no_mcp)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the store as an MCP server over stdin and stdout (for a desktop agent)."""
    from eventmem.serve.tools import run_stdio
    run_stdio(_check_path(_store(args)))
    return 0


def _tokens_path(args: argparse.Namespace) -> str:
    from eventmem.serve.tokens import default_path
    return str(args.tokens) if args.tokens else str(default_path(_check_path(_store(args))))


def cmd_token(args: argparse.Namespace) -> int:
    """Manage the server's bearer tokens: ``add`` prints a new token once, ``list`` shows
    them (never their text), ``revoke ID`` refuses one from its next call."""
    from eventmem.serve import tokens
    path = _tokens_path(args)
    if args.action == "add":
        if not args.namespace:
            raise InvalidInputError("token add needs at least one --namespace (or '*' for all)")
        token, record = tokens.add(path, args.namespace, read_only=args.read_only,
                                   label=args.label)
        grant = "read" if record.read_only else "read-write"
        _emit(args, {"token": token, "token_id": record.token_id,
                     "namespaces": list(record.namespaces), "read_only": record.read_only},
              f"{token}\n(token {record.token_id}, {grant} on {', '.join(record.namespaces)}; "
              f"shown once: only its sha256 is kept in {path})")
    elif args.action == "list":
        records = tokens.load(path).tokens
        shown = [msgspec.structs.replace(r, sha256=r.sha256[:12]) for r in records]
        lines = [f"{r.token_id}  {'revoked' if r.revoked_at else 'active '}  "
                 f"{'read' if r.read_only else 'read-write':10}  {','.join(r.namespaces)}"
                 f"{'  ' + r.label if r.label else ''}" for r in records]
        _emit(args, shown, "\n".join(lines) if lines else f"no tokens in {path}")
    else:
        if not args.token_id:
            raise InvalidInputError("token revoke takes the token's id (see `token list`)")
        record = tokens.revoke(path, args.token_id)
        _emit(args, {"token_id": record.token_id, "revoked_at": record.revoked_at},
              f"revoked {record.token_id}")
    return 0


# -- the parser ----------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors come out as a JSON object when the command line
    asks for ``--json`` (argparse parses it only after the error it would report)."""

    def __init__(self, *args: Any, json_errors: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.json_errors = json_errors

    def error(self, message: str) -> NoReturn:
        if self.json_errors:
            _print_error_json("usage", f"{self.prog}: {message}", 2)
            raise SystemExit(2)
        super().error(message)


def build_parser(*, json_errors: bool = False) -> argparse.ArgumentParser:
    """The ``eventmem`` argument parser: one subcommand per ``cmd_*`` function; ``--store`` and
    ``--json`` are taken before or after the command. ``json_errors``: a usage error is printed
    as a JSON object (``main`` sets it when the command line holds ``--json``)."""
    parser = _Parser(prog="eventmem", description="Long-term memory for AI agents, event-sourced.",
                     json_errors=json_errors)
    parser.add_argument("--store", help="store directory ($EVENTMEM_STORE, else ./eventmem-store)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    # The same options after the command; SUPPRESS keeps a subcommand from resetting a value given
    # before it.
    common = _Parser(add_help=False)
    common.add_argument("--store", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output")
    parser.add_argument("--version", action="version", version=eventmem.__version__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.json_errors = json_errors  # a subcommand's usage errors come out as the command's
        p.set_defaults(func=func)
        return p

    add("demo", cmd_demo, "write a sample conversation, then recall, history, as-of and verify")
    p = add("remember", cmd_remember, "remember a text")
    p.add_argument("text", help="the text; - reads it from stdin")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("--kind")
    p.add_argument("--source", default="user")
    p.add_argument("--importance", type=float)
    p.add_argument("--valid-from")
    p.add_argument("--valid-until")
    p.add_argument("--pin", action="store_true")
    p.add_argument("--tag", action="append", default=[], help="a tag (repeat)")
    p.add_argument("--metadata", metavar="JSON", help="a JSON object of the caller's own keys")
    p.add_argument("--session", help="the conversation it belongs to (working memory)")
    p.add_argument("--tier", choices=["episodic", "semantic", "procedural"],
                   help="the tier to store it in (default: decided from the text)")
    p = add("update", cmd_update, "replace a memory's text with a new version (recorded as a "
            "supersession; the old version stays in its history)")
    p.add_argument("memory_id")
    p.add_argument("text", help="the new text; - reads it from stdin")
    p.add_argument("--metadata", metavar="JSON",
                   help="keys to set on the new version (null removes one)")
    p = add("recall", cmd_recall, "recall memories for a query (read-only: works while an "
            "agent writes, and records nothing unless --record)")
    p.add_argument("query")
    p.add_argument("--session", help="favour this session's memories")
    p.add_argument("--include-hot", action="store_true",
                   help="add the always-relevant hot memories after the hits")
    p.add_argument("--box-context", type=int, default=0, metavar="N",
                   help="show up to N memories said next to each hit (its box)")
    p.add_argument("--record", action="store_true",
                   help="record the recall as an access (takes the writer lock: fails while "
                        "another process writes)")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--valid-at", help="only memories true at this time")
    p.add_argument("--explain", action="store_true",
                   help="print how the query was understood, per-channel ranks and every signal")
    p.add_argument("--profile", default="default",
                   choices=["default", "recent", "important", "deep", "broad"],
                   help="how relevance is weighed against recency, retention and importance")
    p.add_argument("--filter", metavar="JSON",
                   help='only memories whose metadata match, e.g. \'{"project": "apollo"}\' '
                        "or with $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists")
    p = add("get", cmd_get, "show one memory")
    p.add_argument("memory_id")
    p = add("history", cmd_history,
            "a memory's whole life: every event that touched it, and why, in plain language")
    p.add_argument("memory_id")
    p = add("log", cmd_log, "print the event log")
    p.add_argument("--start", type=_positive, default=1, help="the first seq (default 1)")
    p.add_argument("--limit", type=_positive, help="at most this many events")
    p = add("replay", cmd_replay, "rebuild the projections up to a seq or time")
    p.add_argument("--until", help="a seq or an ISO 8601 time (default: the head)")
    p.add_argument("--trace", action="store_true", help="print each replayed event")
    p = add("as-of", cmd_as_of, "the store as it stood at a seq or time")
    p.add_argument("at", help="a seq or an ISO 8601 time")
    p.add_argument("query", nargs="?")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("-k", type=int, default=5)
    p = add("consolidate", cmd_consolidate,
            "maintenance: lifecycle sweep, tiers, expiry, the dream cycle (recorded as events)")
    p.add_argument("--now", help="the time to consolidate at (ISO 8601; default: the clock; "
                                 "not before the latest event)")
    p.add_argument("--dry-run", action="store_true",
                   help="report what it would do and record nothing (read-only)")
    p = add("forget", cmd_forget, "forget a memory (deleted by an event; its history stays)")
    p.add_argument("memory_id")
    p.add_argument("--reason", default="explicit", help="a short code recorded with it")
    for name, what in (("pin", "pin a memory: exempt from forgetting"),
                       ("unpin", "unpin a memory: it can be forgotten again")):
        add(name, cmd_pin, what).add_argument("memory_id")
    p = add("done", cmd_done, "mark a plan or commitment done (it leaves recall)")
    p.add_argument("memory_id")
    p = add("touch", cmd_touch, "record that the agent used a memory (an access)")
    p.add_argument("memory_id")
    p = add("feedback", cmd_feedback, "say whether a memory helped (moves its utility)")
    p.add_argument("memory_id")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--useful", action="store_true")
    verdict.add_argument("--not-useful", action="store_true")
    verdict.add_argument("--target", type=float, metavar="X",
                         help="a graded target utility in [0, 1]")
    p = add("conflicts", cmd_conflicts, "the contradictions found in a namespace")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("--status", choices=["open", "resolved", "all"], default="open")
    p = add("resolve", cmd_resolve, "settle an open conflict (the loser is superseded)")
    p.add_argument("conflict_id")
    p.add_argument("--strategy", default="use_new",
                   choices=["keep_existing", "use_new", "merge", "temporal"])
    p = add("hot", cmd_hot, "the always-relevant memories of a namespace")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("-k", type=int, default=5)
    p = add("boxes", cmd_boxes, "memory boxes: consecutive memories of a session, and the "
            "trace of boxes on a recurring topic")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("--session", default=None)
    p.add_argument("--trace", default=None, help="the boxes of one trace, in seal order")
    p = add("context", cmd_context, "what to put in an agent's prompt for a query, within a "
            "token budget (read-only: records nothing)")
    p.add_argument("query")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--budget-tokens", type=_positive, default=1000)
    p.add_argument("--valid-at", help="only memories true at this time")
    p.add_argument("--profile", default="default",
                   choices=["default", "recent", "important", "deep", "broad"])
    p.add_argument("--filter", metavar="JSON",
                   help='only memories whose metadata match, e.g. \'{"project": "apollo"}\' '
                        "or with $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists")
    p = add("graph", cmd_graph, "the knowledge graph: entities, an entity, its neighbours, the "
            "memories naming it, a memory's links")
    graph = p.add_subparsers(dest="graph_command", required=True, parser_class=_Parser)

    def graph_add(name: str, help_text: str) -> argparse.ArgumentParser:
        g = graph.add_parser(name, parents=[common], help=help_text, description=help_text)
        g.json_errors = json_errors
        g.add_argument("--namespace", "-n", default="default")
        return g

    graph_add("entities", "every entity, most mentioned first").add_argument(
        "--type", help="only entities of this type (person, organization, place, ...)")
    graph_add("entity", "one entity: type, relations, the memories mentioning it").add_argument(
        "name")
    g = graph_add("neighbors", "entities within some hops of one, nearest first")
    g.add_argument("name")
    g.add_argument("--hops", type=int, default=1)
    g.add_argument("--relation", action="append", metavar="TYPE",
                   help="walk only relations of this type (repeat)")
    g.add_argument("--entity-type", action="append", metavar="TYPE",
                   help="pass only through entities of this type (repeat)")
    g.add_argument("--limit", type=int, default=50)
    graph_add("memories", "the ids of the memories naming an entity").add_argument("name")
    graph_add("links", "a memory's links to other memories").add_argument("memory_id")
    p = add("timeline", cmd_timeline, "every version of a fact, or every memory naming an "
            "entity, with valid and known intervals")
    p.add_argument("memory_id", nargs="?")
    p.add_argument("--entity", metavar="NAME")
    p.add_argument("--namespace", "-n", default="default", help="the entity's namespace")
    p = add("list", cmd_list, "the memories, filtered, a page at a time")
    p.add_argument("--namespace", "-n", help="one namespace (default: all)")
    p.add_argument("--status", action="append",
                   help="active, stale, archived, dormant, superseded, deleted, ... (repeat)")
    p.add_argument("--kind")
    p.add_argument("--tag", action="append", help="carrying this tag (repeat: every one)")
    p.add_argument("--since", help="created at or after (ISO 8601)")
    p.add_argument("--until", help="created before (ISO 8601)")
    p.add_argument("--limit", type=_positive, default=100, help="at most this many (100)")
    p.add_argument("--cursor", metavar="ID", help="the next page after this memory")
    p.add_argument("--filter", metavar="JSON",
                   help='only memories whose metadata match, e.g. \'{"project": "apollo"}\' '
                        "or with $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists")
    p = add("export", cmd_export, "write a namespace's memories as JSON lines (read-only)")
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("--out", "-o", metavar="FILE", help="the file to write (default: stdout)")
    p.add_argument("--include-archived", action="store_true",
                   help="archived and dormant memories too")
    p = add("import", cmd_import, "read memories written by export, keeping their times "
            "(those already held are skipped)")
    p.add_argument("file", help="the JSON lines file; - reads stdin")
    p.add_argument("--namespace", "-n", help="import every memory here (default: each line's)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="processes that analyse the texts (0: every core); the memories and "
                        "the log are the same whatever N")
    p = add("erase", cmd_erase, "erase a memory's content, or a namespace's (recorded as an "
            "event; the text, vectors and terms are removed)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--memory", metavar="ID", help="the memory (and those derived from it)")
    target.add_argument("--namespace", "-n", metavar="NS", help="every memory of a namespace")
    p.add_argument("--yes", action="store_true", help="confirm a namespace erase")
    p.add_argument("--reason", default="request", help="a short code recorded with the erase")
    add("compact", cmd_compact, "rewrite the store file without free pages (after an erase: "
        "no byte of the erased text is left); no other process may have the store open")
    add("verify", cmd_verify, "check the hash chain, blobs and projections")
    p = add("audit", cmd_audit, "re-derive every recorded decision and report those that "
            "come out differently")
    p.add_argument("--until", help="audit the decisions up to this seq (default: the head)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes that re-derive the decisions, each a range of the log (0: "
                        "every core; default: every core for a log of 5,000 events or more, "
                        "else one); the report is the same whatever N")
    add("stats", cmd_stats, "counts and sizes")
    p = add("serve", cmd_serve, "serve the store to many agents: a JSON HTTP API "
            "(/openapi.json) and MCP (/mcp); with no token file it runs open, loopback only "
            "(the store is created if missing)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--tokens", help="the token file (default <store>/tokens.json)")
    p.add_argument("--max-body", type=_positive, default=1 << 20,
                   help="largest request body in bytes (default 1 MiB)")
    p.add_argument("--max-k", type=_positive, default=100,
                   help="most results one recall may ask for (default 100)")
    p.add_argument("--no-mcp", action="store_true", help="do not mount MCP at /mcp")
    add("mcp", cmd_mcp, "serve the store as an MCP server over stdio (for desktop agents)")
    p = add("token", cmd_token, "manage the server's bearer tokens (add, list, revoke)")
    p.add_argument("action", choices=["add", "list", "revoke"])
    p.add_argument("token_id", nargs="?", help="revoke: the token's id")
    p.add_argument("--namespace", "-n", action="append",
                   help="add: a namespace the token grants (repeat; '*' for all and the "
                        "store-wide operations)")
    p.add_argument("--read-only", action="store_true", help="add: read, never write")
    p.add_argument("--label", default="", help="add: a note for `token list`")
    p.add_argument("--tokens", help="the token file (default <store>/tokens.json)")
    return parser


def _positive(value: str) -> int:
    """An argparse type: an int of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of at least 1, got {value!r}")
    return number


def _log_failure(args: argparse.Namespace, error: BaseException, code: int) -> None:
    """A line in the ops log of an existing store for a command that failed: the command and
    the error's class, never its message (that may quote the input, and erased text must not
    survive in the ops log). Best effort: a reader may not be allowed to write there."""
    from eventmem.storage.opslog import ops_logger
    store = Path(_store(args))
    if not (store / "data.mdb").is_file():
        return
    try:
        ops = ops_logger(store)
    except OSError:
        return
    try:
        ops.info("failed", command=args.command, error=type(error).__name__, exit=code)
    finally:
        ops.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line (``argv``, default ``sys.argv[1:]``) and return its exit code. A store
    or input error prints one line (and notes the failure in the store's ops log), not a
    traceback. On a terminal, long work (verify, audit, a rebuild, a consolidation) shows a
    progress bar on stderr."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(json_errors="--json" in argv).parse_args(argv)
    try:
        with _progress_bar():
            return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (`eventmem log | head`): not an error. Point stdout at devnull so
        # the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (EventmemError, OSError, lmdb.Error) as exc:
        code = _report(args, exc)
        _log_failure(args, exc, code)
        return code


@contextlib.contextmanager
def _progress_bar() -> Iterator[None]:
    """A progress bar on stderr for the block, when stderr is a terminal (never in a pipe, a
    file or a captured test); it is erased before the command's output or error is printed."""
    if not sys.stderr.isatty():
        yield
        return
    from eventmem import progress
    from eventmem.cli.bar import ProgressBar
    bar = ProgressBar(sys.stderr)
    try:
        with progress.reporting(bar):
            yield
    finally:
        bar.clear()


def _report(args: argparse.Namespace, exc: BaseException) -> int:
    """Print a failed command's one-line message on stderr (with ``--json``, a JSON object:
    ``error`` the error's class, ``message``, ``exit``); its exit code: 2 bad input, 3 the
    store."""
    code = 2 if isinstance(exc, InvalidInputError) else 3
    if isinstance(exc, EventmemError):
        message = str(exc)
    elif isinstance(exc, lmdb.Error):  # a damaged page met while reading
        message = (f"the store file {_store(args)}/data.mdb is damaged ({exc}); restore it "
                   "from a backup")
    else:  # OSError on the store's directory: permissions, a file in the way, no space
        message = f"cannot use the store at {_store(args)}: {exc}"
    if args.json:
        _print_error_json(type(exc).__name__, message, code)
    elif isinstance(exc, EventmemError) and code == 3:
        print(f"eventmem: {type(exc).__name__}: {message}", file=sys.stderr)
    else:
        print(f"eventmem: {message}", file=sys.stderr)
    return code


def _print_error_json(error: str, message: str, code: int) -> None:
    """A failed command's error as one JSON object on stderr (stdout stays for results)."""
    print(json.dumps({"error": error, "message": message, "exit": code}, ensure_ascii=False,
                     sort_keys=True), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
