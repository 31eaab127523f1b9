// The app's own declarations that the README's app snippets refer to, compiled beside each.
import SwiftUI

struct ContentView: View {
    var body: some View { Text("Shop") }
}
