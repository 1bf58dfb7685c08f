#if canImport(Glibc)
import Glibc
#endif

/// The terminal settings to put back if the prompt is interrupted (Ctrl-C, a kill): a signal
/// handler may only touch plain globals, and must never leave the owner's shell without echo.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var terminalSaved: sig_atomic_t = 0

/// Puts echo back, then dies of the signal as it would have (so the shell sees Ctrl-C).
private func restoreTerminalAndDie(_ signal: Int32) {
    if terminalSaved != 0 { tcsetattr(0, TCSANOW, &savedTerminal) }
    var newline: UInt8 = 0x0A
    _ = write(2, &newline, 1)
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

/// Asks for a PIN on the terminal without echoing it, so it never lands in shell history or
/// on a screen someone is reading over your shoulder.
enum PINPrompt {
    /// The line typed (without its newline), or nil at end of input.
    static func read(_ prompt: String) -> String? {
        var stderr = StandardError()
        var saved = termios()
        let isTerminal = tcgetattr(0, &saved) == 0
        // Echo goes off before the prompt appears, so nothing typed after it is ever shown
        // (or discarded by the switch); an interrupt puts it back before the process ends.
        var previous: [Int32: sighandler_t?] = [:]
        if isTerminal {
            savedTerminal = saved
            terminalSaved = 1
            for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
                previous[sig] = signal(sig, restoreTerminalAndDie)
            }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        print(prompt, terminator: "", to: &stderr)
        defer {
            if isTerminal {
                tcsetattr(0, TCSADRAIN, &saved)
                terminalSaved = 0
                for (sig, handler) in previous { signal(sig, handler ?? SIG_DFL) }
                print("", to: &stderr)
            }
        }
        return readLine(strippingNewline: true)
    }
}
