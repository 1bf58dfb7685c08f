function __garage-pins_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __garage-pins_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __garage-pins_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __garage-pins_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __garage-pins_parse_tokens -S
    set -l unparsed_tokens (__garage-pins_tokens -pc)
    switch $unparsed_tokens[1]
    case 'garage-pins'
        __garage-pins_parse_subcommand 0 'h/help'
        switch $unparsed_tokens[1]
        case 'open'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'door=' 'h/help'
        case 'close'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'door=' 'h/help'
        case 'status'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'follow' 'json' 'h/help'
        case 'hold'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'door=' 'h/help'
        case 'light'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'door=' 'h/help'
        case 'remotes'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'door=' 'h/help'
        case 'auto-close'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'door=' 'h/help'
        case 'unlock'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'h/help'
        case 'list'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'json' 'h/help'
        case 'add'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'label=' 'doors=' 'h/help'
        case 'edit'
            __garage-pins_parse_subcommand 2 'socket=' 'pin=' 'doors=' 'h/help'
        case 'delete'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'h/help'
        case 'label'
            __garage-pins_parse_subcommand 2 'socket=' 'pin=' 'h/help'
        case 'log'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'since=' 'follow' 'json' 'h/help'
        case 'who'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'today' 'since=' 'json' 'h/help'
        case 'pair'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'label=' 'admin' 'seconds=' 'h/help'
        case 'phones'
            __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'json' 'h/help'
        case 'unpair'
            __garage-pins_parse_subcommand 1 'socket=' 'pin=' 'h/help'
        case 'homekit'
            __garage-pins_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'show'
                __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'json' 'no-qr' 'h/help'
            case 'pairings'
                __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'json' 'h/help'
            case 'reset'
                __garage-pins_parse_subcommand 0 'socket=' 'pin=' 'h/help'
            end
        case 'init'
            __garage-pins_parse_subcommand 0 'pins=' 'master=' 'slots=' 'force' 'h/help'
        case 'master'
            __garage-pins_parse_subcommand 0 'pins=' 'old=' 'new=' 'force' 'h/help'
        case 'check'
            __garage-pins_parse_subcommand 1 'json' 'h/help'
        case 'import-eeprom'
            __garage-pins_parse_subcommand 1 'pins=' 'slots=' 'force' 'json' 'h/help'
        case 'export'
            __garage-pins_parse_subcommand 0 'pins=' 'h/help'
        case 'import'
            __garage-pins_parse_subcommand 1 'pins=' 'force' 'h/help'
        case 'help'
            __garage-pins_parse_subcommand -r 1 
        end
    end
end

function __garage-pins_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __garage-pins_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __garage-pins_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __garage-pins_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__garage-pins_tokens -p)
    if test -z "$(__garage-pins_tokens -t)"
        set -l index (count (__garage-pins_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'garage-pins' -f
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'open' -d 'Open the door (presses only if it is closed or stopped, as sensed or believed).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'close' -d 'Close the door (presses only if it is open or stopped; after the warning when one is wired).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'status' -d 'Show each door\'s state, how it is known, what is pending, faults and the lockout.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'hold' -d 'Keep the door from closing automatically for MINUTES (0 ends a hold).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'light' -d 'Switch the garage light on (until switched off) or off.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'remotes' -d 'Lock or unlock the opener\'s own remotes and keypads (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'auto-close' -d 'Set how long the door stays open before it closes by itself (0 turns it off; master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'unlock' -d 'End a PIN lockout and forget the wrong PINs, on one channel or all (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'list' -d 'List the stored PINs with their labels (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'add' -d 'Store a new PIN in the first free slot (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'edit' -d 'Replace the PIN in a slot, or the doors it may use (master PIN); its label stays.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'delete' -d 'Forget the PIN in a slot, and its label (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'label' -d 'Name the person a slot\'s PIN belongs to (master PIN); \'\' clears it.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'log' -d 'Show the event history: opens, closes, auto-closes, PIN changes, wrong PINs, lockouts, starts and stops (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'who' -d 'Who opened the door, by label, with the first and last time (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'pair' -d 'Let one phone pair over Bluetooth: shows the passkey to type on it (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'phones' -d 'List the phones paired over Bluetooth (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'unpair' -d 'Forget a paired phone: its key leaves the file and the kernel, its link drops (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'homekit' -d 'Add the garage to Apple Home: the setup code and its QR code, the paired controllers, a reset (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'init' -d 'Create a new PIN table with a master PIN.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'master' -d 'Change the master PIN of a table (offline: stop garaged first).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'check' -d 'Validate a table file and describe it (PINs are not shown).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'import-eeprom' -d 'Make a table from an EEPROM dump of the book\'s Arduino.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'export' -d 'Print a table, its labels and door limits as JSON (a backup: it holds every PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'import' -d 'Write a new table, labels and door limits from a JSON backup (`-` reads stdin).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins open" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins open" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins open" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins open" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins close" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins close" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins close" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins close" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins status" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins status" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins status" follow' -l 'follow' -d 'Keep printing each change as it happens.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins status" json' -l 'json' -d 'Print JSON (one object per line with --follow).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins hold" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins hold" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins hold" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins hold" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins light" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins light" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins light" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins light" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins remotes" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins remotes" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins remotes" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins remotes" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins auto-close" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins auto-close" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins auto-close" door' -l 'door' -d 'The door: its name in garaged\'s config ([door NAME]) or its number, 1 the first (default: the first).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins auto-close" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unlock" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unlock" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins list" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins list" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins list" json' -l 'json' -d 'Print JSON: an array of {slot, pin, label, doors}.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins add" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins add" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins add" label' -l 'label' -d 'Who it is for (up to 32 bytes).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins add" doors' -l 'doors' -d 'Limit the PIN to these doors (names from garaged\'s config, comma-separated), or `all`; the master PIN always reaches every door.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins edit" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins edit" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins edit" doors' -l 'doors' -d 'Limit the PIN to these doors (names from garaged\'s config, comma-separated), or `all`; the master PIN always reaches every door.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins edit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins delete" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins delete" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins label" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins label" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins label" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" since' -l 'since' -d 'Only events at or after TIME.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" follow' -l 'follow' -d 'Keep printing events as they happen, until interrupted.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" json' -l 'json' -d 'Print JSON (an array; one object per line with --follow).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" today' -l 'today' -d 'Only since midnight.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" since' -l 'since' -d 'Only since TIME (as for `log`).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" json' -l 'json' -d 'Print JSON: an array of {who, slot, opens, first, last}, and doors with several.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins who" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" label' -l 'label' -d 'The phone\'s name (default: phone N).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" admin' -l 'admin' -d 'The phone may also manage PINs (P, A, E, D, C=) over Bluetooth, with the master PIN.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" seconds' -l 'seconds' -d 'How long the window stays open (1-600).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins pair" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins phones" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins phones" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins phones" json' -l 'json' -d 'Print JSON: an array of {label, admin, address, private_address, since, seen}.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins phones" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unpair" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unpair" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins unpair" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins homekit" -eq 1' -fa 'show' -d 'Show the setup code, the X-HM:// setup URI, whether it is paired, and a QR code to scan (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins homekit" -eq 1' -fa 'pairings' -d 'List the HomeKit controllers paired with the garage, and which are admins (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_positional "garage-pins homekit" -eq 1' -fa 'reset' -d 'Forget every HomeKit pairing, close every HomeKit session and make a new setup code (master PIN).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit show" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit show" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit show" json' -l 'json' -d 'Print garaged\'s HomeKit record as JSON: setup_code, setup_uri, setup_id, paired, pairings, id, name, category, config_number, failed_setups, setup_locked.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit show" no-qr' -l 'no-qr' -d 'Do not draw the QR code.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit pairings" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit pairings" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit pairings" json' -l 'json' -d 'Print JSON: an array of {id, admin}.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit pairings" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit reset" socket' -l 'socket' -d 'The daemon\'s socket.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit reset" pin' -l 'pin' -d 'Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins homekit reset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins init" pins' -l 'pins' -d 'The table file to create.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins init" master' -l 'master' -d 'The master PIN (5 printable characters): the only PIN that manages PINs.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins init" slots' -l 'slots' -d 'How many slots, master included (1-170).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins init" force' -l 'force' -d 'Replace an existing table (forgets every PIN and label in it).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins master" pins' -l 'pins' -d 'The table file.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins master" old' -l 'old' -d 'The current master PIN.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins master" new' -l 'new' -d 'The new master PIN.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins master" force' -l 'force' -d 'Do not ask for the old PIN (you must be able to write FILE).'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins master" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins check" json' -l 'json' -d 'Print JSON: {file, valid, slots, used, free, labels} or {file, valid, error}.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import-eeprom" pins' -l 'pins' -d 'The table file to write.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import-eeprom" slots' -l 'slots' -d 'Slots in the new table (default: as many as the sketch used).' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import-eeprom" force' -l 'force' -d 'Replace an existing table.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import-eeprom" json' -l 'json' -d 'Print JSON: {slots, used, zeroed, never_written}.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import-eeprom" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins export" pins' -l 'pins' -d 'The table file.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import" pins' -l 'pins' -d 'The table file to write.' -rfka ''
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import" force' -l 'force' -d 'Replace an existing table.'
complete -c 'garage-pins' -n '__garage-pins_should_offer_completions_for_flags_or_options "garage-pins import" h help' -s 'h' -l 'help' -d 'Show help information.'
