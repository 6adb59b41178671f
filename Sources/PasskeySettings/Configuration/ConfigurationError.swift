/// A configuration problem, naming the variable. Never contains a key or the database URL.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable at fault.
    public let variable: String
    /// What is wrong, for a human.
    public let problem: String

    public init(_ variable: String, _ problem: String) {
        self.variable = variable
        self.problem = problem
    }

    /// A problem with a declared variable.
    init(_ variable: ConfigVariable, _ problem: String) {
        self.init(variable.name, problem)
    }

    public var description: String { "\(variable): \(problem)" }
}
