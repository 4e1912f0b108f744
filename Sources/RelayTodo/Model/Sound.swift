/// An alarm sound: the 25 names the MustDo app knows, the `sound` enum of `add_todo` and `update_todo`.
package enum Sound: String, Sendable, CaseIterable {
    case `default`
    case chime
    case marimba
    case beep
    case urgent
    case vibrateOnly
    case siren
    case klaxon
    case rapid
    case redalert
    case musicbox
    case harp
    case morning
    case bowl
    case droplet
    case breeze
    case horror
    case dread
    case ghost
    case lament
    case cello
    case rainy
    case fanfare
    case skip
    case sparkle
}
