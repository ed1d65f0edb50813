import { render } from 'preact';
import { LocationProvider, Route, Router } from 'preact-iso';
import { Settings } from './pages/account/Settings.tsx';
import { ConfirmSignUp } from './pages/ConfirmSignUp.tsx';
import { consoleRoutes } from './pages/console/routes.tsx';
import { Device } from './pages/Device.tsx';
import { Enroll } from './pages/Enroll.tsx';
import { ForgotPassword } from './pages/ForgotPassword.tsx';
import { ResetPassword } from './pages/ResetPassword.tsx';
import { SignUp } from './pages/SignUp.tsx';
import { VerifyEmail } from './pages/VerifyEmail.tsx';

/** The root has no page of its own: people land on their account (which sends the signed-out to sign-in). */
function Home() {
  location.replace('/settings');
  return null;
}

const VerifyNewEmail = () => (
  <VerifyEmail
    endpoint="/account/email/change/verify"
    done={t('verifyEmail.newDone')}
    retry={{ href: '/settings', label: t('verifyEmail.newRetry') }}
    signInFirst={t('verifyEmail.newSignInFirst')}
  />
);

import { loadLanguage, t } from './i18n/i18n.ts';
import { NotFound } from './pages/NotFound.tsx';
import { SecondFactor } from './pages/SecondFactor.tsx';
import { SignIn } from './pages/SignIn.tsx';

function App() {
  return (
    <LocationProvider>
      <Router>
        <Route path="/" component={Home} />
        <Route path="/signin" component={SignIn} />
        <Route path="/enroll" component={Enroll} />
        <Route path="/second-factor" component={SecondFactor} />
        <Route path="/signup" component={SignUp} />
        <Route path="/forgot-password" component={ForgotPassword} />
        <Route path="/account/email/verify" component={ConfirmSignUp} />
        <Route path="/account/email/change/verify" component={VerifyNewEmail} />
        <Route path="/account/password/reset" component={ResetPassword} />
        <Route path="/settings" component={Settings} />
        <Route path="/device" component={Device} />
        {consoleRoutes}
        <Route default component={NotFound} />
      </Router>
    </LocationProvider>
  );
}

// The catalogue of the page's language first (one small request, none for English), so no page ever shows in
// one language and then another.
const root = document.getElementById('app');
if (root) void loadLanguage().then(() => render(<App />, root));
