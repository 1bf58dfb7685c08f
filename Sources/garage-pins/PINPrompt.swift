#if canImport(Glibc)
import Glibc
#endif

/// Asks for a PIN on the terminal without echoing it, so it never lands in shell history or
/// on a screen someone is reading over your shoulder.
enum PINPrompt {
    /// The line typed (without its newline), or nil at end of input.
    static func read(_ prompt: String) -> String? {
        var stderr = StandardError()
        var saved = termios()
        let isTerminal = tcgetattr(0, &saved) == 0
        // Echo goes off before the prompt appears, so nothing typed after it is ever shown
        // (or discarded by the switch).
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        print(prompt, terminator: "", to: &stderr)
        defer {
            if isTerminal {
                tcsetattr(0, TCSADRAIN, &saved)
                print("", to: &stderr)
            }
        }
        return readLine(strippingNewline: true)
    }
}
