#if canImport(UIKit)
import UIKit
import Vigil

/// One button per problem Vigil reports, and a line that says what the last one did.
final class DemoViewController: UIViewController {
    private let settings: ExampleSettings
    private let status = UILabel()
    private lazy var problems = ProblemMaker(settings: settings)
    private let terminal = TerminalDemo()

    init(settings: ExampleSettings) {
        self.settings = settings
        super.init(nibName: nil, bundle: nil)
        title = "Vigil example"
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("not used from a storyboard") }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .systemBackground
        status.numberOfLines = 0
        status.font = .preferredFont(forTextStyle: .footnote)
        status.text = "Events go to \(settings.serverURL.absoluteString)"

        let buttons: [(String, Selector)] = [
            ("Hang the main thread 3 s", #selector(hang)),
            ("Drop and freeze frames", #selector(freezeFrames)),
            ("Slow request (2.5 s)", #selector(slowRequest)),
            ("BLE terminal payment (simulated)", #selector(terminalPayment)),
            ("Crash", #selector(crash)),
        ]
        let stack = UIStackView(arrangedSubviews: buttons.map { title, action in
            let button = UIButton(type: .system)
            button.setTitle(title, for: .normal)
            button.titleLabel?.font = .preferredFont(forTextStyle: .body)
            button.addTarget(self, action: action, for: .touchUpInside)
            return button
        } + [status])
        stack.axis = .vertical
        stack.spacing = 16
        stack.alignment = .leading
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.leadingAnchor.constraint(equalTo: view.layoutMarginsGuide.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: view.layoutMarginsGuide.trailingAnchor),
            stack.topAnchor.constraint(equalTo: view.safeAreaLayoutGuide.topAnchor, constant: 24),
        ])
    }

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        Vigil.setPage("Demo")
        // The first screen is complete once it is on screen: the launch event ends here.
        Vigil.markFullyDrawn()
    }

    @objc private func hang() {
        status.text = "Hanging for 3 s…"
        // Let the label draw first, then block the main thread on the next turn.
        DispatchQueue.main.async { [problems] in
            problems.hangMainThread(seconds: 3)
            self.status.text = "Hang over: a hang event (≥ 2 s) is on its way."
        }
    }

    @objc private func freezeFrames() {
        status.text = "Dropping frames, then freezing one for 0.9 s…"
        problems.dropAndFreezeFrames {
            self.status.text = "Done: slow, severe and frozen frames on page Demo."
        }
    }

    @objc private func slowRequest() {
        status.text = "Calling \(settings.demoAPI.absoluteString)/echo?delayMs=2500…"
        problems.slowRequest { outcome in
            self.status.text = outcome
        }
    }

    @objc private func terminalPayment() {
        status.text = "Connecting to the simulated terminal…"
        terminal.pay(amountMinor: 1_250) { outcome in
            self.status.text = outcome
        }
    }

    @objc private func crash() {
        problems.crash()
    }
}
#endif
