#!/usr/bin/env python3
"""hapctl - a small HomeKit (HAP over IP) controller for testing accessories.

Built on aiohomekit (Home Assistant's HomeKit controller library), pinned to 4.0.1:

    python3 -m venv /tmp/hapvenv && /tmp/hapvenv/bin/pip install aiohomekit==4.0.1

It talks to an accessory at a known address and port; mDNS is never used.  Each
subcommand performs one action and exits.  Pairing data (aiohomekit's pairing-data
dict, which holds the controller's long-term secret key) lives in the JSON file
named by --pairing so that later invocations can reconnect without pairing again.

Subcommands (run `hapctl.py SUBCOMMAND -h` for details):

    pair        --host H --port P --code XXX-XX-XXX --id AA:BB:CC:DD:EE:FF --pairing FILE
    accessories --pairing FILE [--raw]
    get         --pairing FILE --char AID.IID [--char ...]
    put         --pairing FILE --char AID.IID=VALUE [--char ...] [--raw]
    watch       --pairing FILE --char AID.IID [...] --until AID.IID=VALUE --timeout S
                [--put AID.IID=VALUE ...] [--ready-file F]
    pairings    --pairing FILE
    unpair      --pairing FILE
    share       --pairing FILE --to OTHER_FILE --admin 0|1
    hold        --pairing FILE --ready-file F --go-file G (--remove ID | --put AID.IID=VALUE)
    add         --pairing FILE --controller-id ID [--controller-id ...] --key HEX [--admin]
    remove      --pairing FILE --controller-id ID [--controller-id ...]

VALUE is parsed as JSON (0, 1, true, 21.5, "text"); anything that is not valid JSON
is taken as a string.

Every subcommand but `pair` also takes --host/--port (override the stored endpoint),
--timeout S (overall bound, default 30) and --connect-retry S (default 0: the first
connection error is fatal).  Needs Python 3.11+.

Output: JSON on stdout where there is data.  `watch` prints one JSON object per line
per received event: {"aid":..,"iid":..,"value":..,"t":<time.monotonic()>}; only
events the accessory actually sent (EVENT/1.0) are printed, never local echoes.
Diagnostics go to stderr.  On failure a JSON object
{"ok": false, "error": "<exception class>", "message": "..."} is printed on stdout
and "hapctl: <exception class>: <message>" on stderr.

Exit codes:
    0  success
    1  error (connection, protocol, authentication, bad pairing file, ...)
    2  usage error
    3  timeout (an operation, or `watch` did not see its --until condition in time)
    4  the accessory answered but refused something: a non-zero HAP status for a
       characteristic in get/put/subscribe, (pair) the accessory's pairing
       identifier differs from --id, or (share, add, remove) a TLV error for a pairing
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
import tempfile
import time
import uuid
from typing import Any

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3
EXIT_REFUSED = 4

HAP_TCP_TYPE = "_hap._tcp.local."


class HapctlError(Exception):
    """A failure detected by hapctl itself (not raised by aiohomekit)."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR, name: str | None = None):
        super().__init__(message)
        self.exit_code = exit_code
        self.name = name or type(self).__name__


class Refused(HapctlError):
    """The accessory answered with a non-zero status."""

    def __init__(self, message: str, payload: Any = None):
        super().__init__(message, EXIT_REFUSED, "Refused")
        self.payload = payload


class WatchTimeout(HapctlError):
    def __init__(self, message: str):
        super().__init__(message, EXIT_TIMEOUT, "Timeout")


# --------------------------------------------------------------------------- helpers


def emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=False) + "\n")
    sys.stdout.flush()


def note(msg: str) -> None:
    sys.stderr.write(f"hapctl: {msg}\n")
    sys.stderr.flush()


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_char_id(text: str) -> tuple[int, int]:
    try:
        aid_s, iid_s = text.split(".", 1)
        return int(aid_s), int(iid_s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected AID.IID (e.g. 1.10), got {text!r}") from None


def parse_char_assign(text: str) -> tuple[int, int, Any]:
    left, sep, right = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected AID.IID=VALUE (e.g. 1.11=0), got {text!r}")
    aid, iid = parse_char_id(left)
    return aid, iid, parse_value(right)


def key(aid: int, iid: int) -> str:
    return f"{aid}.{iid}"


def load_pairing_file(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise HapctlError(f"pairing file {path} does not exist (run `pair` first)", name="PairingFileMissing")
    except ValueError as e:
        raise HapctlError(f"pairing file {path} is not valid JSON: {e}", name="PairingFileInvalid")
    needed = ("AccessoryPairingID", "AccessoryLTPK", "iOSPairingId", "iOSDeviceLTSK", "AccessoryPort")
    missing = [k for k in needed if k not in data]
    if missing or data.get("Connection", "IP") != "IP":
        raise HapctlError(
            f"pairing file {path} is not IP pairing data (missing {missing})", name="PairingFileInvalid"
        )
    return data


def save_pairing_file(path: str, data: dict[str, Any]) -> None:
    # The file holds the controller's Ed25519 secret key: write it 0600, atomically.
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".hapctl-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------- aiohomekit glue
#
# aiohomekit is imported lazily so that `--help` and usage errors work without it.


def _aiohomekit():
    try:
        from aiohomekit.characteristic_cache import CharacteristicCacheMemory
        from aiohomekit.controller.ip.controller import IpController
        from aiohomekit.controller.ip.discovery import IpDiscovery
        from aiohomekit.controller.ip.pairing import IpPairing
        from aiohomekit.model import Categories
        from aiohomekit.model.feature_flags import FeatureFlags
        from aiohomekit.model.status_flags import StatusFlags
        from aiohomekit.zeroconf import HomeKitService
    except ImportError as e:
        raise HapctlError(
            f"cannot import aiohomekit ({e}); install it with: pip install aiohomekit==4.0.1",
            name="ImportError",
        )
    return (
        CharacteristicCacheMemory,
        IpController,
        IpDiscovery,
        IpPairing,
        Categories,
        FeatureFlags,
        StatusFlags,
        HomeKitService,
    )


class _NoZeroconf:
    """Stand-in for zeroconf.asyncio.AsyncZeroconf.

    IpController only touches its zeroconf instance in async_start()/async_find(),
    which hapctl never calls: the accessory's address and port are given directly.
    """

    zeroconf = None


def make_controller():
    CharacteristicCacheMemory, IpController, *_ = _aiohomekit()
    return IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=_NoZeroconf())


def make_pairing(controller, data: dict[str, Any]):
    """Build an IpPairing subclass that records HTTP statuses and raw events."""
    IpPairing = _aiohomekit()[3]

    class HapctlPairing(IpPairing):
        def __init__(self, ctrl, pairing_data):
            super().__init__(ctrl, pairing_data)
            self.http_log: list[dict[str, Any]] = []
            self.event_sink = None
            self.secure_connections = 0
            conn = self.connection
            original_request = conn.request

            async def recording_request(method, target, headers=None, body=None):
                from aiohomekit.exceptions import HttpErrorResponse

                try:
                    resp = await original_request(method, target, headers=headers, body=body)
                except HttpErrorResponse as e:
                    self.http_log.append({"method": method, "target": target, "status": e.response.code})
                    raise
                self.http_log.append({"method": method, "target": target, "status": resp.code})
                return resp

            # Instance attribute shadows the method for every request, pair-verify included.
            conn.request = recording_request

        def last_status(self, method: str, target_prefix: str) -> int | None:
            for entry in reversed(self.http_log):
                if entry["method"] == method and entry["target"].startswith(target_prefix):
                    return entry["status"]
            return None

        def event_received(self, event):
            # Raw EVENT/1.0 bodies from the accessory, before aiohomekit reshapes them.
            # (aiohomekit's dispatcher_connect listeners also see local echoes of our own
            # writes, so they are not used for `watch`.)
            if self.event_sink is not None:
                self.event_sink(event, time.monotonic())
            super().event_received(event)

        async def connection_made(self, secure):
            if secure:
                self.secure_connections += 1
                if self.secure_connections > 1:
                    note("reconnected to the accessory (the previous session was lost)")
            await super().connection_made(secure)

    return HapctlPairing(controller, data)


def apply_endpoint_override(data: dict[str, Any], host: str | None, port: int | None) -> None:
    if host:
        data["AccessoryIP"] = host
        data["AccessoryIPs"] = [host]
    if port:
        data["AccessoryPort"] = port


async def open_pairing(args):
    data = load_pairing_file(args.pairing)
    apply_endpoint_override(data, getattr(args, "host", None), getattr(args, "port", None))
    controller = make_controller()
    return make_pairing(controller, data), data


async def connect(conn, retry_for: float) -> None:
    """Open (and for a pairing, pair-verify) aiohomekit's connection, failing fast.

    aiohomekit's connector retries forever with back-off; here the first connection
    error is raised at once (its own class, e.g. ConnectionError), unless retry_for > 0,
    in which case retries go on for that many seconds.  AuthenticationError from
    pair-verify is always raised at once by aiohomekit itself.
    """
    if conn.is_connected:
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + retry_for
    waiter = asyncio.ensure_future(conn.ensure_connection())
    try:
        while True:
            done, _ = await asyncio.wait({waiter}, timeout=0.02)
            if done:
                waiter.result()
                break
            err = conn.last_connector_error
            if err is not None and loop.time() >= deadline:
                raise err
    finally:
        if not waiter.done():
            waiter.cancel()
    if not conn.is_connected:
        raise HapctlError(f"could not connect to {conn.hosts}:{conn.port}", name="ConnectionError")


async def ensure_connected(pairing, args) -> None:
    # Connect and pair-verify now so that connection errors are reported as such.
    await connect(pairing.connection, args.connect_retry)


# --------------------------------------------------------------------- subcommands


async def cmd_pair(args) -> int:
    (_, _, IpDiscovery, _, Categories, FeatureFlags, StatusFlags, HomeKitService) = _aiohomekit()
    from aiohomekit.utils import check_pin_format

    check_pin_format(args.code)  # MalformedPinError before touching the network
    controller = make_controller()
    service = HomeKitService(
        name=args.name,
        id=args.id.lower(),
        model=args.model,
        feature_flags=FeatureFlags(args.ff),
        status_flags=StatusFlags(args.sf),
        config_num=args.config_num,
        state_num=1,
        category=Categories(args.ci),
        protocol_version="1.1",
        type=HAP_TCP_TYPE,
        address=args.host,
        addresses=[args.host],
        port=args.port,
    )
    discovery = IpDiscovery(controller, service)
    if args.controller_id is not None:
        # aiohomekit names the controller with a fresh uuid4; --controller-id chooses it.
        import types
        import aiohomekit.controller.ip.discovery as discovery_module

        discovery_module.uuid = types.SimpleNamespace(uuid4=lambda: args.controller_id)
    started = time.monotonic()
    try:
        await connect(discovery.connection, args.connect_retry)
        finish = await discovery.async_start_pairing(args.id.lower())
        pairing = await finish(args.code)
    finally:
        await discovery.close()
    elapsed = time.monotonic() - started
    data = dict(pairing.pairing_data)
    save_pairing_file(args.pairing, data)
    await pairing.close()

    accessory_id = data["AccessoryPairingID"]
    result = {
        "ok": True,
        "pairing_file": args.pairing,
        "accessory_pairing_id": accessory_id,
        "controller_pairing_id": data["iOSPairingId"],
        "host": args.host,
        "port": args.port,
        "seconds": round(elapsed, 3),
    }
    if accessory_id.lower() != args.id.lower():
        result["ok"] = False
        result["error"] = "IdMismatch"
        result["message"] = (
            f"accessory's pairing identifier {accessory_id!r} differs from --id {args.id!r} "
            "(mDNS `id` must equal the pair-setup M6 identifier)"
        )
        emit(result)
        note(f"IdMismatch: {result['message']}")
        return EXIT_REFUSED
    emit(result)
    return EXIT_OK


async def cmd_accessories(args) -> int:
    pairing, _ = await open_pairing(args)
    try:
        await ensure_connected(pairing, args)
        if args.raw:
            body = await pairing.connection.get_json("/accessories")
        else:
            # Parsed (and so validated) by aiohomekit's model; type UUIDs normalised.
            accessories = await pairing.list_accessories_and_characteristics()
            body = {"accessories": accessories}
    finally:
        await pairing.close()
    emit(body)
    return EXIT_OK


def _status_rows(requested, statuses: dict, fill_missing_with) -> list[dict[str, Any]]:
    rows = []
    for aid, iid, *rest in requested:
        row: dict[str, Any] = {"aid": aid, "iid": iid}
        got = statuses.get((aid, iid))
        if got is None:
            row.update(fill_missing_with)
        else:
            row.update(got)
        rows.append(row)
    return rows


async def cmd_get(args) -> int:
    pairing, _ = await open_pairing(args)
    wanted = list(dict.fromkeys(args.char))
    try:
        await ensure_connected(pairing, args)
        result = await pairing.get_characteristics(wanted)
        http_status = pairing.last_status("GET", "/characteristics")
    finally:
        await pairing.close()
    rows = _status_rows(
        wanted, result, {"status": None, "description": f"not in the HTTP {http_status} reply"}
    )
    out = {"http_status": http_status, "characteristics": rows}
    emit(out)
    bad = [r for r in rows if r.get("status") not in (None, 0) or "value" not in r]
    if bad:
        note("some characteristics were not read: " + ", ".join(key(r["aid"], r["iid"]) for r in bad))
        return EXIT_REFUSED
    return EXIT_OK


async def do_put(pairing, writes, raw: bool = False) -> dict[str, Any]:
    if raw:
        # Send the body as given, without aiohomekit's model (which needs the target
        # characteristics to exist in the accessory database).
        body = {"characteristics": [{"aid": a, "iid": i, "value": v} for a, i, v in writes]}
        reply = await pairing.connection.put_json("/characteristics", body)
        from aiohomekit.controller.ip.pairing import format_characteristic_list

        result = format_characteristic_list(reply) if reply else {}
    else:
        # aiohomekit's put_characteristics (what Home Assistant uses) first loads the
        # accessory database (GET /accessories) and looks every target up in it.
        if not pairing.accessories:
            await pairing.list_accessories_and_characteristics()
        for aid, iid, _ in writes:
            acc = pairing.accessories.aid_or_none(aid)
            if acc is None or acc.characteristics.iid(iid) is None:
                raise HapctlError(
                    f"{key(aid, iid)} is not in the accessory database (use `put --raw` to send it anyway)",
                    name="NotInAccessoryDatabase",
                )
        result = await pairing.put_characteristics(writes)
    http_status = pairing.last_status("PUT", "/characteristics")
    # 204: every write succeeded and there is no body.  207: one status per item.
    if http_status == 204:
        fill = {"status": 0}
    else:
        fill = {"status": None, "description": f"no status for this characteristic in the HTTP {http_status} reply"}
    rows = _status_rows(writes, result, fill)
    for row, (_, _, value) in zip(rows, writes):
        row["value"] = value
    return {"http_status": http_status, "characteristics": rows}


async def cmd_put(args) -> int:
    pairing, _ = await open_pairing(args)
    try:
        await ensure_connected(pairing, args)
        out = await do_put(pairing, args.char, raw=args.raw)
    finally:
        await pairing.close()
    emit(out)
    bad = [r for r in out["characteristics"] if r.get("status") != 0]
    if bad:
        note(
            f"HTTP {out['http_status']}; refused: "
            + ", ".join(f"{key(r['aid'], r['iid'])} status {r.get('status')}" for r in bad)
        )
        return EXIT_REFUSED
    return EXIT_OK


async def cmd_watch(args) -> int:
    u_aid, u_iid, u_value = args.until
    subs = list(dict.fromkeys(list(args.char) + [(u_aid, u_iid)]))
    subs.sort()  # aiohomekit groups subscriptions per aid with itertools.groupby
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    deadline = loop.time() + args.timeout

    def sink(event: dict[str, Any], t: float) -> None:
        for c in event.get("characteristics", []) if isinstance(event, dict) else []:
            if not isinstance(c, dict):
                continue
            line = {"aid": c.get("aid"), "iid": c.get("iid"), "value": c.get("value"), "t": t}
            if "status" in c:
                line["status"] = c["status"]
            emit(line)
            if (c.get("aid"), c.get("iid")) == (u_aid, u_iid) and c.get("value") == u_value:
                if not done.done():
                    done.set_result(line)

    pairing, _ = await open_pairing(args)
    try:
        async with asyncio.timeout_at(deadline):
            await ensure_connected(pairing, args)
            pairing.event_sink = sink
            status = await pairing.subscribe(subs)
            if not pairing.supports_subscribe or not pairing.is_connected:
                raise HapctlError("the subscription request failed (connection lost)", name="SubscribeFailed")
            http_status = pairing.last_status("PUT", "/characteristics")
            refused = {k: v for k, v in (status or {}).items() if v.get("status") != 0}
            if refused:
                raise Refused(
                    "subscription refused: "
                    + ", ".join(f"{key(*k)} status {v['status']} ({v['description']})" for k, v in refused.items())
                )
            note(f"subscribed to {', '.join(key(*s) for s in subs)} (HTTP {http_status})")
            if args.ready_file:
                with open(args.ready_file, "w", encoding="utf-8") as f:
                    f.write(f"{time.monotonic()}\n")
            if args.put:
                put_out = await do_put(pairing, args.put)
                note("put " + json.dumps(put_out))
                bad = [r for r in put_out["characteristics"] if r.get("status") != 0]
                if bad:
                    raise Refused("write refused: " + json.dumps(bad))
            await done
    except TimeoutError:
        raise WatchTimeout(
            f"timed out after {args.timeout} s without seeing {key(u_aid, u_iid)}={json.dumps(u_value)}"
        )
    finally:
        pairing.event_sink = None
        await pairing.close()
    return EXIT_OK


async def cmd_pairings(args) -> int:
    pairing, data = await open_pairing(args)
    try:
        await ensure_connected(pairing, args)
        entries = await pairing.list_pairings()
    finally:
        await pairing.close()
    rows = [
        {
            "id": e.get("pairingId"),
            "admin": e.get("controllerType") == "admin",
            "permissions": e.get("permissions"),
            "public_key": e.get("publicKey"),
            "self": e.get("pairingId") == data["iOSPairingId"],
        }
        for e in entries
    ]
    emit({"pairings": rows})
    return EXIT_OK


async def cmd_unpair(args) -> int:
    pairing, data = await open_pairing(args)
    try:
        await ensure_connected(pairing, args)
        await pairing.remove_pairing(data["iOSPairingId"])
    finally:
        await pairing.close()
    os.unlink(args.pairing)
    emit({"ok": True, "removed": data["iOSPairingId"], "pairing_file_deleted": args.pairing})
    return EXIT_OK


async def cmd_share(args) -> int:
    """As an admin, add (or re-add with other permissions) a second controller; its pairing
    file, with keys made here the first time, is written to --to."""
    pairing, data = await open_pairing(args)
    if os.path.exists(args.to):
        other = load_pairing_file(args.to)
    else:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        key = Ed25519PrivateKey.generate()
        raw = serialization.Encoding.Raw
        other = dict(data)
        other["iOSPairingId"] = str(uuid.uuid4())
        other["iOSDeviceLTSK"] = key.private_bytes(raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()).hex()
        other["iOSDeviceLTPK"] = key.public_key().public_bytes(raw, serialization.PublicFormat.Raw).hex()
    public_key = bytes.fromhex(other["iOSDeviceLTPK"])
    await post_pairings(pairing, args, [add_pairing_items(other["iOSPairingId"], public_key, bool(args.admin))])
    save_pairing_file(args.to, other)
    emit({"ok": True, "added": other["iOSPairingId"], "admin": bool(args.admin)})
    return EXIT_OK


async def cmd_hold(args) -> int:
    """Opens a verified session, creates --ready-file, waits for --go-file, then on that same
    session removes the pairing --remove, or writes --put: what an open session may still do
    after a change, or a write sent while the accessory is stalled."""
    pairing, _ = await open_pairing(args)
    try:
        await ensure_connected(pairing, args)
        await pairing.list_accessories_and_characteristics()
        with open(args.ready_file, "w") as f:
            f.write("ready")
        while not os.path.exists(args.go_file):
            await asyncio.sleep(0.02)
        from aiohomekit.exceptions import AuthenticationError, UnknownError

        if args.put:
            result = await do_put(pairing, args.put, raw=True)
            emit(result)
            bad = [r for r in result["characteristics"] if r.get("status") not in (0, None)]
            return EXIT_REFUSED if bad or result["http_status"] not in (204, 200) else EXIT_OK
        try:
            await pairing.remove_pairing(args.remove)
            emit({"ok": True, "removed": args.remove})
        except (AuthenticationError, UnknownError) as e:
            emit({"ok": False, "error": type(e).__name__, "message": str(e)})
            return EXIT_REFUSED
    finally:
        await pairing.close()
    return EXIT_OK


async def post_pairings(pairing, args, requests) -> int:
    """POST /pairings once per list of TLV items, in turn, on the pairing's one session, then
    closes it; how many were done. Stops at the first refusal: Refused (exit 4) with the
    accessory's TLV error and how many were done before."""
    from aiohomekit.protocol.tlv import TLV

    done = 0
    try:
        await ensure_connected(pairing, args)
        for items in requests:
            answer = dict(await pairing.connection.post_tlv("/pairings", [(TLV.kTLVType_State, TLV.M1)] + items))
            if TLV.kTLVType_Error in answer:
                code = answer[TLV.kTLVType_Error][0]
                raise Refused(f"the accessory answered TLV error {code} after {done} done", {"tlv_error": code, "done": done})
            done += 1
    finally:
        await pairing.close()
    return done


def add_pairing_items(controller_id: str, public_key: bytes, admin: bool) -> list:
    """One AddPairing request's TLV items (M1's state is added when sent): what `add` sends for
    each id and `share` for the controller it makes."""
    from aiohomekit.protocol.tlv import TLV

    permissions = TLV.kTLVType_Permission_AdminUser if admin else TLV.kTLVType_Permission_RegularUser
    return [(TLV.kTLVType_Method, TLV.AddPairing), (TLV.kTLVType_Identifier, controller_id.encode()),
            (TLV.kTLVType_PublicKey, public_key), (TLV.kTLVType_Permissions, permissions)]


async def cmd_add(args) -> int:
    pairing, _ = await open_pairing(args)
    key = bytes.fromhex(args.key)
    done = await post_pairings(pairing, args, [add_pairing_items(c, key, args.admin) for c in args.controller_id])
    emit({"ok": True, "done": done})
    return EXIT_OK


async def cmd_remove(args) -> int:
    from aiohomekit.protocol.tlv import TLV

    pairing, _ = await open_pairing(args)
    done = await post_pairings(pairing, args, [
        [(TLV.kTLVType_Method, TLV.RemovePairing), (TLV.kTLVType_Identifier, controller_id.encode())]
        for controller_id in args.controller_id
    ])
    emit({"ok": True, "done": done})
    return EXIT_OK


# ------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hapctl.py",
        description="HomeKit (HAP over IP) test controller built on aiohomekit 4.0.1; no mDNS.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit codes: 0 ok, 1 error, 2 usage, 3 timeout, 4 refused by the accessory.",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="-v: hapctl info; -vv: aiohomekit debug (raw HTTP)")
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp, pairing=True, timeout=30.0, endpoint=True):
        if pairing:
            sp.add_argument("--pairing", required=True, metavar="FILE", help="pairing data JSON file")
        if endpoint:
            sp.add_argument("--host", help="override the accessory address stored in the pairing file")
            sp.add_argument("--port", type=int, help="override the accessory port stored in the pairing file")
        sp.add_argument("--timeout", type=float, default=timeout, metavar="S", help=f"overall limit in seconds (default {timeout:g})")
        sp.add_argument("--connect-retry", type=float, default=0.0, metavar="S",
                        help="keep retrying a failed TCP connect / pair-verify for S seconds (default 0: fail at once)")

    sp = sub.add_parser("pair", help="pair-setup with an unpaired accessory")
    sp.add_argument("--host", required=True)
    sp.add_argument("--port", required=True, type=int)
    sp.add_argument("--code", required=True, help="setup code XXX-XX-XXX")
    sp.add_argument("--id", required=True, help="accessory id as in the mDNS `id` TXT record")
    sp.add_argument("--name", default="hapctl-target", help="service name (mDNS instance name), informational")
    sp.add_argument("--model", default="", help="mDNS `md`, informational")
    sp.add_argument("--ci", type=int, default=4, help="mDNS `ci` category (default 4, garage door opener)")
    sp.add_argument("--sf", type=int, default=1, help="mDNS `sf` status flags (default 1, unpaired)")
    sp.add_argument("--ff", type=int, default=0, help="mDNS `ff` feature flags (default 0: M1 method PairSetup)")
    sp.add_argument("--config-num", type=int, default=1, help="mDNS `c#` (default 1)")
    sp.add_argument("--controller-id", help="this controller's pairing id (default: a fresh uuid4, as aiohomekit makes)")
    common(sp, endpoint=False)

    sp = sub.add_parser("accessories", help="print the accessory database")
    sp.add_argument("--raw", action="store_true", help="print the body exactly as parsed JSON, without aiohomekit's model")
    common(sp)

    sp = sub.add_parser("get", help="read characteristics")
    sp.add_argument("--char", required=True, action="append", type=parse_char_id, metavar="AID.IID")
    common(sp)

    sp = sub.add_parser("put", help="write characteristics")
    sp.add_argument("--char", required=True, action="append", type=parse_char_assign, metavar="AID.IID=VALUE")
    sp.add_argument("--raw", action="store_true",
                    help="send the PUT as given, skipping aiohomekit's accessory-database lookup")
    common(sp)

    sp = sub.add_parser("watch", help="subscribe to events and print them until a value is seen")
    sp.add_argument("--char", action="append", default=[], type=parse_char_id, metavar="AID.IID")
    sp.add_argument("--until", required=True, type=parse_char_assign, metavar="AID.IID=VALUE")
    sp.add_argument("--put", action="append", default=[], type=parse_char_assign, metavar="AID.IID=VALUE",
                    help="write this once the subscription is confirmed")
    sp.add_argument("--ready-file", metavar="F", help="create F once the subscription is in place")
    common(sp)

    sp = sub.add_parser("pairings", help="list the accessory's pairings (admin only)")
    common(sp)

    sp = sub.add_parser("unpair", help="remove this controller's pairing and delete the pairing file")
    common(sp)

    sp = sub.add_parser("share", help="as an admin, add another controller (keys made for it) or change its permissions")
    sp.add_argument("--to", required=True, metavar="FILE", help="the other controller's pairing file (made if missing)")
    sp.add_argument("--admin", type=int, choices=[0, 1], required=True)
    common(sp)

    sp = sub.add_parser("hold", help="keep a verified session open, then remove a pairing on it when told")
    sp.add_argument("--ready-file", required=True, metavar="F")
    sp.add_argument("--go-file", required=True, metavar="F")
    then = sp.add_mutually_exclusive_group(required=True)
    then.add_argument("--remove", metavar="ID")
    then.add_argument("--put", action="append", type=parse_char_assign, metavar="AID.IID=VALUE")
    common(sp, timeout=60.0)
    sp = sub.add_parser("add", help="add other controllers' pairings (admin only); exit 4 with the TLV error if refused")
    sp.add_argument("--controller-id", required=True, action="append",
                    help="a pairing id to add (any text: the accessory decides); repeat it to add several in turn")
    sp.add_argument("--key", required=True, metavar="HEX", help="its Ed25519 public key, 64 hex digits")
    sp.add_argument("--admin", action="store_true", help="as an admin (default: a user)")
    common(sp)

    sp = sub.add_parser("remove", help="remove controllers' pairings by id (admin only); exit 4 with the TLV error if refused")
    sp.add_argument("--controller-id", required=True, action="append", help="a pairing id to remove; repeat it for several")
    common(sp)
    return p


COMMANDS = {
    "pair": cmd_pair,
    "accessories": cmd_accessories,
    "get": cmd_get,
    "put": cmd_put,
    "watch": cmd_watch,
    "pairings": cmd_pairings,
    "unpair": cmd_unpair,
    "share": cmd_share,
    "hold": cmd_hold,
    "add": cmd_add,
    "remove": cmd_remove,
}


async def run(args) -> int:
    handler = COMMANDS[args.cmd]
    if args.cmd == "watch":
        return await handler(args)  # bounded by its own --timeout
    try:
        async with asyncio.timeout(args.timeout):
            return await handler(args)
    except TimeoutError:
        raise HapctlError(f"{args.cmd} did not finish within {args.timeout} s", EXIT_TIMEOUT, "Timeout")


def ProtocolErrorTypes():
    try:
        from aiohomekit.exceptions import ProtocolError
    except ImportError:
        return ()
    return (ProtocolError,)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.WARNING
    if args.verbose >= 2:
        level = logging.DEBUG
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.verbose == 1:
        logging.getLogger("hapctl").setLevel(logging.INFO)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # report every failure as class name + message
        name = e.name if isinstance(e, HapctlError) else type(e).__name__
        code = e.exit_code if isinstance(e, HapctlError) else EXIT_ERROR
        message = str(e) or repr(e)
        # aiohomekit names the pairing step as e.g. "step bytearray(b'\\x04')": say "step M4".
        message = re.sub(r"bytearray\(b'\\x0([0-9a-f])'\)", r"M\1", message)
        if isinstance(e, ProtocolErrorTypes()):
            message += " (the accessory answered with a TLV error or failed a check)"
        out = {"ok": False, "error": name, "message": message}
        if isinstance(e, Refused) and e.payload is not None:
            out["detail"] = e.payload
        emit(out)
        note(f"{name}: {message}")
        if args.verbose:
            import traceback

            traceback.print_exc()
        return code


if __name__ == "__main__":
    sys.exit(main())
