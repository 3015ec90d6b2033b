use std::fmt::{self, Display};

use crate::Chargeable;

/// The currency of an account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Currency {
    Eur,
    Usd,
    /// Anything else, by ISO code.
    Other(&'static str),
}

impl Currency {
    /// The ISO 4217 code.
    pub fn code(&self) -> &'static str {
        match self {
            Currency::Eur => "EUR",
            Currency::Usd => "USD",
            Currency::Other(c) => c,
        }
    }
}

/// An account holds a balance in one currency.
#[derive(Debug)]
pub struct Account {
    pub owner: String,
    balance: u64,
    currency: Currency,
    history: Box<History>,
}

#[derive(Debug, Default)]
struct History {
    entries: Vec<i64>,
}

impl History {
    fn push(&mut self, delta: i64) {
        self.entries.push(delta);
    }
}

impl Account {
    /// Opens an empty account.
    pub fn new(owner: &str, currency: Currency) -> Self {
        Account { owner: owner.to_string(), balance: 0, currency, history: Box::default() }
    }

    pub fn balance(&self) -> u64 {
        self.balance
    }

    pub fn deposit(&mut self, amount: u64) {
        self.balance += amount;
        self.history.push(amount as i64);
    }

    pub fn withdraw(&mut self, amount: u64) -> Result<u64, String> {
        if amount > self.balance {
            return Err(format!("{} has only {}", self.owner, self.balance));
        }
        self.balance -= amount;
        self.history.push(-(amount as i64));
        Ok(self.balance)
    }

    /// Moves the whole balance into a new account of the same owner.
    pub fn split(&mut self) -> Account {
        let mut other = Self::new(&self.owner, self.currency);
        let all = self.balance();
        other.deposit(all);
        self.withdraw(all).expect("balance checked");
        other
    }
}

impl Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.owner, self.balance, self.currency.code())
    }
}

impl Chargeable for Account {
    const RATE: u64 = 25;

    fn charge(&mut self, amount: u64) -> u64 {
        let fee = self.fee(amount);
        self.withdraw(fee).unwrap_or(0)
    }
}

// Unusual but valid: a blanket impl over references, a raw identifier, an
// extern block, a let-else and a function nested in a function.
impl<'a, T: Chargeable + ?Sized> Chargeable for &'a mut T {
    const RATE: u64 = T::RATE;

    fn charge(&mut self, amount: u64) -> u64 {
        (**self).charge(amount)
    }
}

pub fn r#match(account: &Account, owner: &str) -> bool {
    fn normalise(s: &str) -> String {
        s.trim().to_lowercase()
    }
    let Some(first) = owner.split(' ').next() else {
        return false;
    };
    normalise(&account.owner) == normalise(first)
}

extern "C" {
    fn ledger_checksum(data: *const u8, len: usize) -> u32;
}
