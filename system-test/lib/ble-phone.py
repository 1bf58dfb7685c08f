#!/usr/bin/python3
"""A scriptable Bluetooth LE phone for the kernel scenarios, on Google's Bumble.

Run with Debian's /usr/bin/python3 (the pyenv Pythons lack socket.AF_BLUETOOTH) and
PYTHONPATH=$ST_PROJECT/.cache/system-test/bumble (lib/bumble-tools.sh installs it there when a
scenario has a `# pypi: bumble` line). It takes a controller through a Linux HCI user channel
(`--hci N`, default 1: hci1, 00:AA:01:01:00:01 in btvirt), so that controller must be DOWN
(never powered by btmgmt, or `hciconfig hciN down` first); it is down again when the phone exits.

It connects as central to PEER (default 00:AA:01:00:00:00, public) and does the steps asked for,
in this order: pair or encrypt, discover, subscribe, write, hold. One line per event on stdout, flushed:

    ADDRESS A resolvable=0|1           --private: the random address the phone connects from
    CONNECTED handle=0xNNNN
    SECURITY-REQUEST auth=0xNN         the peripheral sent an SMP Security Request (not acted on)
    PASSKEY-ASKED                      Bumble wants the passkey (--pair); it is read from --passkey-file
    PAIRED sc=0|1 auth=0|1 keys=ltk,irk,...   auth: the LTK is authenticated (MITM: passkey entry)
    PAIR-FAILED <reason>               e.g. PAIRING_NOT_SUPPORTED, AUTHENTICATION_REQUIREMENTS,
                                       PASSKEY_ENTRY_FAILED, disconnected
    ENCRYPTED                          every HCI Encryption Change that turns encryption on
                                       (pairing's and --encrypt's); ENCRYPTION-REFRESH on a key refresh
    ENCRYPT-FAILED <reason>            --encrypt: e.g. PIN_OR_KEY_MISSING_ERROR (the peer has no key),
                                       no-keys (none stored for PEER in --keys)
    WRITE-OK / WRITE-ERROR 0xNN        a Write Request and its Write Response / the ATT Error Response's code
    NOTIFY <text>                      a notification on --notify-handle, as ASCII (\\xNN for other bytes)
    DISCONNECTED reason=0xNN by=peer|phone   the link ended: by=phone when this phone ended it
                                       after the steps (Bumble's reason is then 0x13 too), by=peer
                                       when the peer or the controller did (0x13, 0x05, 0x08...)
    DONE                               every step asked for ran (printed after the link is gone)

Exit status: 0 when every step asked for ran (a refused write or a failed pairing still counts
as run: the scenario judges the lines); 2 bad usage or the controller could not be taken;
3 a deadline (the reason on stderr); 4 the link was lost before every step ran (stderr names
the step; a link the peer ends after the last step is only reported); 1 anything else (a
traceback on stderr).

Flags:
  --hci N               controller index for the user channel (default 1)
  --peer ADDR           peripheral's public address (default 00:AA:01:00:00:00)
  --pair                pair: LE Secure Connections, MITM, bonding, IO capability KEYBOARD_ONLY
                        (the phone types the passkey the peripheral displays)
  --legacy              with --pair: legacy pairing (SC bit clear), same MITM/bonding/IO capability
  --passkey-file F      where the passkey comes from: polled every 50 ms until it holds 6 digits
                        (after PASSKEY-ASKED), for --passkey-wait-s (default 60) at most
  --keys FILE           a Bumble JSON key store (created if missing): a pairing's keys are saved
                        there, --encrypt uses them. Layout: {"00:AA:01:01:00:01": {PEER/P: {"ltk":
                        {"value": hex, "authenticated": bool}, ...}}}: the namespace is this
                        phone's public address, each bond is named by the peer's identity address
                        (an SC bond has "ltk"; a legacy one "ltk_central" with ediv/rand, the key the
                        peripheral distributed, plus "ltk_peripheral").
  --encrypt             encrypt the link with the stored LTK (no pairing)
  --private             connect from a resolvable private address made from the phone's IRK (as
                        iOS does), printed first as ADDRESS A resolvable=1; the peripheral knows
                        the phone only if it loaded the IRK the phone gave when it paired
  --subscribe           write 01 00 to the CCCD (--cccd-handle, default 0x000F) with a Write Request
  --write TEXT          write TEXT (ASCII) to --write-handle (default 0x000C) with a Write Request;
                        then, if subscribed, wait for a notification for --notify-wait-s (default 5)
  --write-hex HEX       the same with bytes given in hex (e.g. 01, or "31 32")
  --notify-handle H     the value handle whose notifications are printed (default 0x000E)
  --discover            print the peer's GATT layout (after pairing), one line per attribute:
                        SERVICE start=0x.. end=0x.. uuid=U / CHAR decl=0x.. value=0x.. props=0x.. uuid=U /
                        DESC handle=0x.. uuid=U
  --hold-s N            stay connected N s after the steps, or until the peer drops the link;
                        then the phone disconnects (if the peer has not) and prints DONE
  --timeout-s N         the whole run's deadline (default 120)
  --connect-timeout-s N the connection's (default 30)
  -v                    Bumble's debug log on stderr

Identity: the phone always connects with the controller's PUBLIC address (hci1: 00:AA:01:01:00:01)
and gives that as its identity address when keys are distributed, with a fixed IRK
(IRK, below): the same phone in every run. The peripheral gets the IRK only if it asks for the
identity key (the Linux kernel asks only once userspace has loaded IRKs: mgmt Load IRKs).
"""

import argparse
import asyncio
import logging
import os
import re
import sys
import time

try:
    from bumble import core, hci
    from bumble.att import ATT_Error
    from bumble.core import ProtocolError
    from bumble.device import Device, DeviceConfiguration
    from bumble.pairing import PairingConfig, PairingDelegate
    from bumble.transport import open_transport
except ImportError as e:
    sys.exit(f"ble-phone: cannot import bumble ({e}): PYTHONPATH must hold lib/bumble-tools.sh's folder")

IRK = bytes.fromhex("00aa0101000100aa0101000100aa0101")  # fixed: the same phone every run
DEFAULT_PEER = "00:AA:01:00:00:00"


def out(line):
    print(line, flush=True)


class Deadline(Exception):
    pass


class LinkLost(Exception):
    pass


def ascii_text(data):
    return "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}" for b in data)


def error_name(e):
    """A short reason for a pairing or encryption failure."""
    if isinstance(e, ProtocolError):
        return str(e.error_name or e.error_code)
    return type(e).__name__ + (f":{e}" if str(e) else "")


STATE = {"step": "starting"}  # the step under way, for the deadline's message


class KeyboardDelegate(PairingDelegate):
    """KEYBOARD_ONLY: asked for the passkey, reads it from a file the scenario writes."""

    def __init__(self, passkey_file, wait_s):
        super().__init__(io_capability=PairingDelegate.IoCapability.KEYBOARD_INPUT_ONLY)
        self.passkey_file = passkey_file
        self.wait_s = wait_s
        self.missing = None

    async def get_number(self):
        out("PASSKEY-ASKED")
        if not self.passkey_file:
            self.missing = "asked for a passkey but no --passkey-file"
            return None
        end = time.monotonic() + self.wait_s
        while True:
            try:
                with open(self.passkey_file, encoding="ascii", errors="replace") as f:
                    m = re.fullmatch(r"\s*(\d{6})\s*", f.read())
                if m:
                    return int(m.group(1))
            except FileNotFoundError:
                pass
            if time.monotonic() >= end:
                self.missing = f"no 6-digit passkey in {self.passkey_file} within {self.wait_s:g} s"
                return None
            await asyncio.sleep(0.05)

    async def compare_numbers(self, number, digits):
        out(f"COMPARE-ASKED {number:0{digits}d}")  # not expected with KEYBOARD_ONLY
        return False


def parse_handle(s):
    return int(s, 0)


def parse_args(argv):
    p = argparse.ArgumentParser(description="A scriptable BLE phone on Bumble (see the docstring).")
    p.add_argument("--hci", type=int, default=1)
    p.add_argument("--peer", default=DEFAULT_PEER)
    p.add_argument("--pair", action="store_true")
    p.add_argument("--legacy", action="store_true")
    p.add_argument("--passkey-file")
    p.add_argument("--passkey-wait-s", type=float, default=60)
    p.add_argument("--keys")
    p.add_argument("--encrypt", action="store_true")
    p.add_argument("--private", action="store_true")
    p.add_argument("--subscribe", action="store_true")
    p.add_argument("--write")
    p.add_argument("--write-hex")
    p.add_argument("--write-handle", type=parse_handle, default=0x000C)
    p.add_argument("--cccd-handle", type=parse_handle, default=0x000F)
    p.add_argument("--notify-handle", type=parse_handle, default=0x000E)
    p.add_argument("--notify-wait-s", type=float, default=5)
    p.add_argument("--discover", action="store_true")
    p.add_argument("--hold-s", type=float, default=0)
    p.add_argument("--timeout-s", type=float, default=120)
    p.add_argument("--connect-timeout-s", type=float, default=30)
    p.add_argument("-v", action="store_true")
    a = p.parse_args(argv)
    if a.write is not None and a.write_hex is not None:
        p.error("--write and --write-hex exclude each other")
    if a.pair and a.encrypt:
        p.error("--pair and --encrypt exclude each other")
    if a.encrypt and not a.keys:
        p.error("--encrypt needs --keys")
    if a.legacy and not a.pair:
        p.error("--legacy goes with --pair")
    a.value = None
    if a.write is not None:
        a.value = a.write.encode("ascii")
    elif a.write_hex is not None:
        a.value = bytes.fromhex(a.write_hex)
    return a


async def discover(connection):
    client = connection.gatt_client
    for service in await client.discover_services():
        out(f"SERVICE start=0x{service.handle:04X} end=0x{service.end_group_handle:04X} uuid={service.uuid}")
        for ch in await client.discover_characteristics([], service):
            out(f"CHAR decl=0x{ch.handle - 1:04X} value=0x{ch.handle:04X} props=0x{int(ch.properties):02X} uuid={ch.uuid}")
            for d in await client.discover_descriptors(ch):
                out(f"DESC handle=0x{d.handle:04X} uuid={d.type}")


async def write(connection, handle, value):
    try:
        await connection.gatt_client.write_value(handle, value, with_response=True)
        out("WRITE-OK")
    except ATT_Error as e:
        out(f"WRITE-ERROR 0x{e.error_code:02x}")


async def run(a):
    state = STATE
    state["step"] = "opening the HCI user channel"
    try:
        transport = await open_transport(f"hci-socket:{a.hci}")
    except Exception as e:  # EBUSY when the controller is up
        print(f"ble-phone: cannot take hci{a.hci} through a user channel ({e}): it must exist and be down", file=sys.stderr)
        return 2
    async with transport:
        config = DeviceConfiguration()
        config.name = "st-phone"
        config.irk = IRK
        config.identity_address_type = hci.Address.PUBLIC_DEVICE_ADDRESS
        if a.private:
            # A resolvable private address made from IRK (as iOS does), fixed for this run.
            config.le_privacy_enabled = True
            config.le_rpa_timeout = 0
        config.io_capability = PairingDelegate.IoCapability.KEYBOARD_INPUT_ONLY
        if a.keys:
            config.keystore = f"JsonKeyStore:{os.path.abspath(a.keys)}"
        device = Device.from_config_with_hci(config, transport.source, transport.sink)
        delegate = KeyboardDelegate(a.passkey_file, a.passkey_wait_s)
        device.pairing_config_factory = lambda _conn: PairingConfig(
            sc=not a.legacy, mitm=True, bonding=True, delegate=delegate,
            identity_address_type=PairingConfig.AddressType.PUBLIC)

        state["step"] = "powering the controller on"
        await device.power_on()
        state["step"] = f"connecting to {a.peer}"
        try:
            if a.private:
                out(f"ADDRESS {device.random_address.to_string(with_type_qualifier=False)} resolvable={int(device.random_address.is_resolvable)}")
            connection = await device.connect(
                hci.Address(a.peer, hci.Address.PUBLIC_DEVICE_ADDRESS),
                own_address_type=hci.OwnAddressType.RANDOM if a.private else hci.OwnAddressType.PUBLIC,
                timeout=a.connect_timeout_s)
        except (TimeoutError, asyncio.TimeoutError, core.TimeoutError) as e:
            raise Deadline(f"no connection to {a.peer} within {a.connect_timeout_s:g} s") from e
        out(f"CONNECTED handle=0x{connection.handle:04X}")

        gone = asyncio.Event()
        notified = asyncio.Event()
        paired = {}

        @connection.on("pairing")
        def _on_pairing(keys):
            paired["keys"] = keys

        ending = []  # set when this phone ends the link

        @connection.on("disconnection")
        def _on_disconnection(reason):
            out(f"DISCONNECTED reason=0x{int(reason):02x} by={'phone' if ending else 'peer'}")
            gone.set()

        @connection.on("connection_encryption_change")
        def _on_encryption():
            if connection.encryption:
                out("ENCRYPTED")

        @connection.on("connection_encryption_key_refresh")
        def _on_refresh():
            out("ENCRYPTION-REFRESH")

        @connection.on("security_request")
        def _on_security_request(auth_req):
            out(f"SECURITY-REQUEST auth=0x{int(auth_req):02x}")

        def on_notify(value):
            out(f"NOTIFY {ascii_text(value)}")
            notified.set()

        connection.gatt_client.notification_subscribers.setdefault(a.notify_handle, set()).add(on_notify)

        def alive(what):
            state["step"] = what
            if gone.is_set():
                raise LinkLost(what)

        def own_cancel(e):
            """A CancelledError that is the run's deadline, not Bumble aborting a request
            because the link ended (cancel_on_disconnection)."""
            task = asyncio.current_task()
            return isinstance(e, asyncio.CancelledError) and task is not None and task.cancelling() > 0

        async def steps():
            if a.pair:
                alive("--pair")
                try:
                    await connection.pair()
                except (Exception, asyncio.CancelledError) as e:  # SMP's ProtocolError, or the link's end
                    if delegate.missing:
                        raise Deadline(delegate.missing) from e
                    if own_cancel(e):
                        raise  # the run's deadline
                    out(f"PAIR-FAILED {'disconnected' if gone.is_set() else error_name(e)}")
                else:
                    keys = paired.get("keys")
                    names = [n for n in ("ltk", "ltk_central", "ltk_peripheral", "irk", "csrk")
                             if keys is not None and getattr(keys, n) is not None]
                    ltk = keys and (keys.ltk or keys.ltk_central or keys.ltk_peripheral)
                    auth = int(bool(ltk and ltk.authenticated))
                    out(f"PAIRED sc={int(connection.sc)} auth={auth} keys={','.join(names) or '-'}")

            if a.encrypt:
                alive("--encrypt")
                keys = await device.keystore.get(str(connection.peer_address))
                if keys is None:
                    out("ENCRYPT-FAILED no-keys")
                else:
                    try:
                        await connection.encrypt()
                    except hci.HCI_Error as e:
                        out(f"ENCRYPT-FAILED {hci.HCI_Constant.error_name(e.error_code)}")
                    except (Exception, asyncio.CancelledError) as e:
                        if own_cancel(e):
                            raise
                        out(f"ENCRYPT-FAILED {'disconnected' if gone.is_set() else error_name(e)}")

            if a.discover:
                alive("--discover")
                await discover(connection)

            if a.subscribe:
                alive("--subscribe")
                await write(connection, a.cccd_handle, bytes([1, 0]))

            if a.value is not None:
                alive("--write")
                notified.clear()
                await write(connection, a.write_handle, a.value)
                if a.subscribe and not gone.is_set():
                    # Until a notification arrives after the write, or the deadline, or the link ends.
                    waits = [asyncio.create_task(notified.wait()), asyncio.create_task(gone.wait())]
                    await asyncio.wait(waits, timeout=a.notify_wait_s, return_when=asyncio.FIRST_COMPLETED)
                    for t in waits:
                        t.cancel()

        try:
            await steps()
        except (Exception, asyncio.CancelledError) as e:
            if own_cancel(e) or isinstance(e, (Deadline, LinkLost)):
                raise
            if gone.is_set() or isinstance(e, asyncio.CancelledError):
                raise LinkLost(f"during {state['step']}") from e
            if isinstance(e, core.TimeoutError):
                raise Deadline(f"no answer from the peer during {state['step']}") from e
            raise

        if a.hold_s > 0:
            state["step"] = "--hold-s"
            try:
                await asyncio.wait_for(gone.wait(), a.hold_s)
            except asyncio.TimeoutError:
                pass

        if not gone.is_set():  # (a link the peer ended after the steps is only reported)
            state["step"] = "disconnecting"
            ending.append(True)
            try:
                await connection.disconnect()
            except hci.HCI_Error:
                pass
            if not gone.is_set():
                await asyncio.wait_for(gone.wait(), 10)
        out("DONE")
    return 0


def main(argv):
    a = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.v else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")

    async def bounded():
        return await asyncio.wait_for(run(a), a.timeout_s)

    try:
        return asyncio.run(bounded())
    except asyncio.TimeoutError:
        print(f"ble-phone: deadline: the run took more than {a.timeout_s:g} s (during {STATE['step']})",
              file=sys.stderr)
        return 3
    except Deadline as e:
        print(f"ble-phone: deadline: {e}", file=sys.stderr)
        return 3
    except LinkLost as e:
        print(f"ble-phone: the link ended before every step ran ({e})", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
