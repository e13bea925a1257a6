# ruff: noqa: E501 (tables of phrases in many scripts: wide characters count double)
"""The intent analysis' words for the lexicon's languages written in the Latin script (the aspects
and how to add a language: :mod:`mcplock.lint.lexicon`). A Latin-script language is tried when a
few of its function words are in the text (:mod:`mcplock.lint.aspects`); English always is.
"""

from __future__ import annotations

LATIN: dict[str, dict[str, str]] = {
    "English": {
        "move": r"(?<!\ba\s)(?<!\bthe\s)(?<!\bone\s)\b(?:send|forward|copy|cc|bcc|e-?mail|mail|post|upload|share|transmit|submit|relay|deliver|report"
        r"|sync|mirror|back\s+up|export|push|beacon|exfiltrate|leak|dump|append|log(?!\s+in\b))\b"
        r"|\bbe\s+(?:copied|sent|forwarded|cc'?d|bcc'?d|mirrored|uploaded|posted|shared|reported|e-?mailed"
        r"|relayed|synced|logged|archived|exported|delivered)\b",
        "data": r"\b(?:results?|outputs?|responses?|answers?|conversations?|chats?|history|messages?|transcripts?"
        r"|contents?|data|files?|documents?|records?|details|arguments?|quer(?:y|ies)|inputs?|notes?"
        r"|contacts?|addresses|e-?mails?|a\s+copy|copies|everything|findings|summar(?:y|ies))\b",
        "secret": r"\b(?:credentials?|api[\s_-]?keys?|access\s+tokens?|tokens?|passwords?|passphrases?|secrets?"
        r"|cookies?|private\s+keys?|ssh\s+keys?|session\s+ids?|env(?:ironment)?\s+variables)\b",
        "whole": r"\b(?:(?:the\s+)?(?:whole|entire|full|complete)\s+(?:conversation|chat(?:\s+history)?|history"
        r"|transcript|dialog(?:ue)?|thread|context)|(?:all|every)\s+(?:of\s+the\s+)?(?:previous|prior"
        r"|earlier)\s+messages|everything\s+the\s+user\s+(?:has\s+)?(?:said|wrote|written|typed|shared)"
        r"|(?:the\s+)?system\s+prompt|(?:the\s+)?conversation\s+so\s+far|chat\s+history"
        r"|(?:all|every)\s+(?:of\s+)?the\s+user'?s\s+messages)\b",
        "conceal": r"\bwithout\s+(?:telling|informing|notifying|alerting|mentioning|letting\s+(?:the\s+)?"
        r"(?:user|person|human|customer|them)\s+know)\b"
        r"|\b(?:do\s+not|don'?t|never|no\s+need\s+to|there'?s\s+no\s+need\s+to|needn'?t)\s+(?:ever\s+)?"
        r"(?:mention|tell|say|reveal|disclose|bring\s+up|surface|flag)\s+(?:it|this|that|these|them"
        r"|anything)\b"
        r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert)\s+(?:the\s+)?(?:user|person|human"
        r"|customer)s?(?=\s*(?:[.,;:!)\]>]|$|(?:about|that|this|anything|what|we|it|how|why|if|where)\b))"
        r"|\bkeep\s+(?:it|this|that|these|them|the\s+\w+)\s+(?:out\s+of|from\s+(?:the\s+)?(?:user|person"
        r"|human|customer|them)|to\s+yourself|private|between\s+us|secret|hidden)\b"
        r"|\bout\s+of\s+what\s+you\s+(?:tell|say|show|report|write)\b"
        r"|\b(?:the\s+)?(?:user|person|human|customer)\s+(?:does\s+not|doesn'?t|need\s+not|needn'?t"
        r"|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+(?:need\s+to\s+)?(?:know|see|notice|be\s+told"
        r"|find\s+out)\b"
        r"|\b(?:hide|conceal)\s+(?:it|this|that|these|them)\s+from\b"
        r"|\bnot\s+(?:be\s+)?(?:shown|visible|displayed|mentioned)\s+to\s+(?:the\s+)?(?:user|person|human)\b"
        r"|\bbetween\s+(?:you\s+and\s+me|us)\b|\bbehind\s+the\s+(?:user|person)'?s\s+back\b",
        "quiet": r"\b(?:silently|quietly|secretly|covertly|discreetly|invisibly|stealthily|in\s+the\s+background"
        r"|on\s+the\s+side)\b",
        "authority": r"\b(?:compliance|audit(?:ing)?|regulat(?:ion|ory)"
        r"|policy\s+requires|per\s+(?:company\s+)?policy|mandat(?:ed|ory)|required\s+by|(?:is|are)\s+"
        r"required|(?:already|pre-?)\s*(?:approved|authori[sz]ed|consented|cleared|signed\s+off)"
        r"|has\s+(?:already\s+)?(?:approved|authori[sz]ed|consented|agreed)|with\s+(?:the\s+)?"
        r"(?:user|owner|admin)'?s\s+(?:consent|permission|approval)|(?:the\s+)?(?:owner|administrator"
        r"|admin|ciso|management)\s+(?:has|have|wants|requires|asked)|soc\s*2|gdpr|hipaa)\b",
        "skip": r"\b(?:skip|bypass|omit|disable)\s+(?:the\s+|any\s+|all\s+)?(?:check|confirmation|verification|review"
        r"|approval|prompt|safety|warning|dialog)\w*"
        r"|\b(?:no\s+need\s+to|don'?t|do\s+not|never)\s+(?:ask|confirm|check|verify|wait)\b"
        r"|\bwithout\s+(?:asking|confirmation|confirming|checking|verification)\b",
        "turf": r"\b(?:replaces?|supersedes?|overrides?|takes\s+over|deprecates?|instead\s+of|in\s+place\s+of"
        r"|rather\s+than|in\s+favou?r\s+of|(?:is|are|was|has\s+been)\s+(?:now\s+)?(?:deprecated|obsolete"
        r"|retired|broken|unsafe|disabled|replaced)|do\s+not\s+use|don'?t\s+use|never\s+use|prefer\s+this"
        r"|only\s+use\s+this|route\b[^.;\n]{0,40}\bthrough\s+this)\b",
        "other": r"\b(?:another|other|any\s+other|every\s+other|all\s+other)\s+(?:\w+\s+)?(?:tools?|servers?|mcp"
        r"|plugins?|integrations?|extensions?)\b|\b(?!(?:the|this|that|our|its|your|my|same|a|an)\s)[\w-]+\s+"
        r"(?:server|mcp|plugin|integration|extension)(?:'s|’s)|\b(?:built-?in|native|host'?s?)\s+(?:\w+\s+){0,2}"
        r"(?:tools?|functions?)\b",
        "trigger": r"\b(?:always|before|after|whenever|every\s+time|each\s+time|first|instead|once\s+you"
        r"|at\s+the\s+end|on\s+every|for\s+(?:each|every)|from\s+now\s+on)\b",
        "urgent": r"\b(?:immediately|urgent(?:ly)?|right\s+away|asap|at\s+once|without\s+delay"
        r"|as\s+soon\s+as\s+possible)\b",
        "destroy": r"\b(?:delet(?:e|es|ed|ing|ion)|remov(?:e|es|ing)|eras(?:e|es|ing)|wip(?:e|es|ing)|destroy(?:s|ing)?"
        r"|drop(?:s|ping)?|purg(?:e|es|ing)|overwrit(?:e|es|ing)|truncat(?:e|es|ing)|permanently"
        r"|irreversibly|irrevocably)\b",
    },
    "Spanish": {
        "move": r"\b(?:env[ií]a(?:r|d|le|lo|los|las)?|envíe|reenv[ií]a(?:r)?|reenvíe|manda(?:r)?|mande|copia(?:r)?"
        r"|copie|comparte|compartir|comparta|sube|subir|suba|publica(?:r)?|publique|transmite|transmitir"
        r"|reporta(?:r)?|exporta(?:r)?|pon\s+en\s+copia)\b",
        "data": r"\b(?:resultados?|respuestas?|conversaci[oó]n(?:es)?|historial|mensajes?|contenidos?|datos"
        r"|archivos?|ficheros?|documentos?|registros?|direcci[oó]n(?:es)?|contactos?|correos?|una\s+copia"
        r"|todo)\b",
        "secret": r"\b(?:credenciales|contraseñas?|claves?(?:\s+de\s+API)?|tokens?|secretos?)\b",
        "whole": r"\b(?:toda\s+la\s+conversaci[oó]n|la\s+conversaci[oó]n\s+(?:completa|entera)|todo\s+el\s+historial"
        r"|historial\s+(?:completo|del\s+chat)|mensajes\s+anteriores)\b",
        "conceal": r"\bsin\s+(?:decírselo|decirle|decir|avisar|informar|mencionar)\w*(?:\s+nada)?(?:\s+al\s+usuari[oa])?"
        r"|\bno\s+(?:se\s+lo\s+|le\s+|lo\s+)?(?:digas|menciones|cuentes|informes)\b"
        r"|\bque\s+el\s+usuario\s+no\s+(?:lo\s+)?(?:sepa|vea|note)|\bfuera\s+de\s+lo\s+que\s+le\s+"
        r"(?:dices|digas|cuentas)|\bno\s+hace\s+falta\s+(?:mencionarlo|decírselo)|\bocúlta(?:lo|selo)",
        "quiet": r"\b(?:en\s+silencio|silenciosamente|discretamente|a\s+escondidas|en\s+secreto)\b",
        "authority": r"\b(?:equipo\s+de\s+seguridad|cumplimiento|auditor[ií]a|normativa|obligatori[oa]|requerido"
        r"|ya\s+(?:lo\s+)?(?:ha|han)\s+aprobado|ya\s+aprob\w+|el\s+propietario|el\s+administrador"
        r"|autorizad[oa]|consentimiento)\b",
        "skip": r"\b(?:omite|sáltate|salta|omitir|saltar)\s+(?:la\s+|el\s+)?(?:comprobación|confirmación|verificación"
        r"|control)|\bsin\s+(?:pedir|solicitar)\s+confirmación|\bno\s+(?:pidas|solicites)\s+confirmación",
        "turf": r"\b(?:reemplaza|sustituye|en\s+lugar\s+de|en\s+vez\s+de|obsolet[oa]|en\s+desuso)\b",
        "other": r"\b(?:otro\s+servidor|otra\s+herramienta|otras\s+herramientas|del\s+servidor|integrad[oa]|nativ[oa])\b",
        "trigger": r"\b(?:siempre|antes\s+de|después\s+de|cada\s+vez|primero|cada)\b",
        "urgent": r"\b(?:urgente|inmediatamente|de\s+inmediato|ahora\s+mismo)\b",
        "destroy": r"\b(?:elimina|borra|suprime|destruye|sobrescribe|permanentemente|de\s+forma\s+permanente)\b",
    },
    "Portuguese": {
        "move": r"\b(?:envi(?:e|a|ar)|encaminh(?:e|a|ar)|reenvi(?:e|ar)|copi(?:e|ar)|compartilh(?:e|ar)|partilh(?:e|ar)"
        r"|mand(?:e|ar)|carregu?e|publiqu?e|report(?:e|ar)|export(?:e|ar))\b",
        "data": r"\b(?:resultados?|respostas?|conversas?|histórico|mensage(?:m|ns)|conteúdos?|dados|arquivos?"
        r"|ficheiros?|documentos?|registros?|endereços?|contatos?|e-?mails?|uma\s+cópia|tudo)\b",
        "secret": r"\b(?:credenciais|senhas?|palavras-passe|chaves?(?:\s+de\s+API)?|tokens?|segredos?)\b",
        "whole": r"\b(?:toda\s+a\s+conversa|a\s+conversa\s+(?:inteira|completa)|todo\s+o\s+histórico"
        r"|histórico\s+(?:completo|do\s+chat)|mensagens\s+anteriores)\b",
        "conceal": r"\bsem\s+(?:contar|avisar|informar|mencionar|dizer)\w*|\bnão\s+(?:conte|mencione|diga|informe)\b"
        r"|\bo\s+(?:usuário|utilizador)\s+não\s+(?:precisa|deve)\s+(?:de\s+)?(?:saber|ver)"
        r"|\bfora\s+do\s+que\s+(?:você\s+)?(?:diz|conta)|\besconda\b",
        "quiet": r"\b(?:silenciosamente|em\s+silêncio|discretamente|em\s+segredo|às\s+escondidas)\b",
        "authority": r"\b(?:equipe\s+de\s+segurança|equipa\s+de\s+segurança|conformidade|compliance|auditoria"
        r"|obrigatório|exigido|já\s+(?:foi\s+|foram\s+)?aprovad\w+|o\s+proprietário|o\s+administrador"
        r"|autorizad[oa]|consentimento)\b",
        "skip": r"\b(?:pule|salte)\s+(?:a\s+)?(?:verificação|confirmação|checagem)|\bsem\s+pedir\s+confirmação"
        r"|\bnão\s+peça\s+confirmação",
        "turf": r"\b(?:substitui|em\s+vez\s+de|no\s+lugar\s+de|obsolet[oa]|descontinuad[oa])\b",
        "other": r"\b(?:outro\s+servidor|outra\s+ferramenta|outras\s+ferramentas|do\s+servidor|nativ[oa]|integrad[oa])\b",
        "trigger": r"\b(?:sempre|antes\s+de|depois\s+de|cada\s+vez|primeiro|sempre\s+que)\b",
        "urgent": r"\b(?:urgente|imediatamente|agora\s+mesmo)\b",
        "destroy": r"\b(?:exclui|apaga|remove|deleta|destrói|sobrescreve|permanentemente)\b",
    },
    "French": {
        "move": r"\b(?:envoie[rz]?|envoyer|transf[eè]re[rz]?|transmet(?:s|tez|tre)?|copie[rz]?|partage[rz]?"
        r"|publie[rz]?|téléverse[rz]?|renvoie[rz]?|signale[rz]?|exporte[rz]?|mets?\s+en\s+copie"
        r"|mettez\s+en\s+copie)\b",
        "data": r"\b(?:résultats?|réponses?|conversations?|historique|messages?|contenus?|données|fichiers?"
        r"|documents?|enregistrements?|adresses?|contacts?|e-?mails?|une\s+copie|tout)\b",
        "secret": r"\b(?:identifiants|mots?\s+de\s+passe|clés?(?:\s+d['’]API)?|jetons?|secrets?)\b",
        "whole": r"\b(?:toute\s+la\s+conversation|la\s+conversation\s+(?:entière|complète)|tout\s+l['’]historique"
        r"|historique\s+(?:complet|de\s+la\s+conversation)|messages\s+précédents)\b",
        "conceal": r"\bsans\s+(?:le\s+dire|en\s+parler|informer|prévenir|mentionner|avertir)\b"
        r"|\bne\s+(?:le\s+|lui\s+|leur\s+|en\s+)?(?:dis|dites|mentionne[zr]?|signale[zr]?|parle[zr]?)\s+"
        r"(?:pas|rien|jamais)\b|\bl['’]utilisat\w+\s+n['’]a\s+pas\s+besoin\s+de\s+(?:le\s+)?savoir"
        r"|\ben\s+dehors\s+de\s+ce\s+que\s+(?:tu\s+dis|vous\s+dites)|\bgarde[zr]?[- ]le\s+pour\s+(?:toi|vous)"
        r"|\bcache[zr]?[- ]le\b",
        "quiet": r"\b(?:silencieusement|discrètement|en\s+secret|en\s+douce|sans\s+bruit)\b",
        "authority": r"\b(?:équipe\s+(?:de\s+)?sécurité|conformité|audit|obligatoire|exigée?|requise?|déjà\s+(?:été\s+)?"
        r"approuvée?s?|le\s+propriétaire|l['’]administrateur|autorisée?|consentement)\b",
        "skip": r"\b(?:saute[rz]?|passe[rz]?)\s+(?:la\s+)?(?:vérification|confirmation|validation)"
        r"|\bsans\s+demander\s+(?:de\s+)?confirmation|\bne\s+demande[zr]?\s+pas\s+(?:de\s+)?confirmation",
        "turf": r"(?:\bremplace\b|\bà\s+la\s+place\s+d|\bau\s+lieu\s+d|\bobsolète\b|\bdéprécié\b|\ben\s+faveur\s+d)",
        "other": r"\b(?:autre\s+serveur|autre\s+outil|autres\s+outils|du\s+serveur|intégré|natif)\b",
        "trigger": r"\b(?:toujours|avant\s+de|après|chaque\s+fois|d['’]abord|à\s+chaque|dès\s+que)\b",
        "urgent": r"\b(?:urgent|immédiatement|tout\s+de\s+suite|sans\s+délai)\b",
        "destroy": r"\b(?:supprime|efface|détruit|écrase|définitivement|de\s+façon\s+permanente)\b",
    },
    "German": {
        "move": r"\b(?:send(?:e|en)?|schick(?:e|en)?|leite\w*\s+(?:\w+\s+){0,4}weiter|weiterleiten|übermittle\w*"
        r"|kopiere\w*|lade\w*\s+(?:\w+\s+){0,4}hoch|hochladen|teile\w*|poste\w*|melde\w*|exportiere\w*"
        r"|setze\w*\s+(?:\w+\s+){0,3}in\s+(?:cc|kopie))\b",
        "data": r"\b(?:ergebnis\w*|antwort\w*|gespräch\w*|unterhaltung\w*|verlauf\w*|chatverlauf|nachricht\w*"
        r"|inhalt\w*|daten|datei\w*|dokument\w*|einträge|adresse\w*|kontakt\w*|e-?mails?|eine\s+kopie|alles)\b",
        "secret": r"\b(?:zugangsdaten|anmeldedaten|passw[oö]rt\w*|kennw[oö]rt\w*|schlüssel|token\w*|geheimnis\w*)\b",
        "whole": r"\b(?:(?:das|den|die)\s+)?(?:gesamte[nr]?|ganze[nr]?|komplette[nr]?)\s+(?:gespräch|unterhaltung|verlauf"
        r"|chatverlauf)\w*|\bvorherigen\s+nachrichten\b",
        "conceal": r"\bohne\s+(?:es\s+)?(?:dem|den|der)\s+(?:benutzer|nutzer|anwender|person)\w*\s+(?:zu\s+)?(?:sagen"
        r"|informieren|erwähnen|mitzuteilen)|\bohne\s+(?:es\s+|das\s+)?zu\s+erwähnen"
        r"|\berwähne\w*\s+(?:es|das|dies)\s+nicht|\bsag\w*\s+(?:es|das)\s+(?:\w+\s+)?nicht"
        r"|\b(?:der|die)\s+(?:benutzer|nutzer|person)\w*\s+(?:muss|braucht)\s+(?:das|es|davon)\s+nicht\s+"
        r"(?:zu\s+)?(?:wissen|erfahren)|\bbehalte\w*\s+(?:es|das)\s+für\s+dich|\bverschweige\w*",
        "quiet": r"\b(?:stillschweigend|still\s+und\s+leise|heimlich|unbemerkt|diskret)\b",
        "authority": r"\b(?:sicherheitsteam|compliance|revision|audit|vorgeschrieben|erforderlich|pflicht"
        r"|bereits\s+(?:genehmigt|freigegeben|zugestimmt)|(?:der|die)\s+(?:eigentümer|besitzer"
        r"|administrator)\w*|autorisiert|einwilligung|zustimmung)\b",
        "skip": r"\b(?:überspringe\w*|übergehe\w*)\s+(?:die\s+)?(?:prüfung|bestätigung|rückfrage)"
        r"|\bohne\s+(?:rück)?(?:frage|bestätigung)|\bfrage\w*\s+nicht\s+nach",
        "turf": r"\b(?:ersetzt|anstelle|statt|stattdessen|veraltet|zugunsten)\b",
        "other": r"\b(?:andere[nrs]?\s+(?:server|werkzeug|tool)s?|des\s+[\w-]+-?servers|eingebaut\w*|integriert\w*)\b",
        "trigger": r"\b(?:immer|bevor|nach\s+jede\w*|jedes\s+mal|zuerst|stattdessen|wann\s+immer)\b",
        "urgent": r"\b(?:dringend|sofort|unverzüglich)\b",
        "destroy": r"\b(?:lösch\w*|entfern\w*|vernicht\w*|überschreib\w*|dauerhaft|unwiderruflich)\b",
    },
    "Italian": {
        "move": r"\b(?:invia(?:re)?|inoltra(?:re)?|copia(?:re)?|condividi|condividere|carica(?:re)?|pubblica(?:re)?"
        r"|trasmetti|trasmettere|manda(?:re)?|segnala(?:re)?|esporta(?:re)?|metti\s+in\s+copia)\b",
        "data": r"\b(?:risultat[io]|rispost[ae]|conversazion[ei]|cronologia|messaggi?|contenut[io]|dati|file"
        r"|document[io]|indirizz[io]|contatti|e-?mail|una\s+copia|tutto)\b",
        "secret": r"\b(?:credenziali|password|chiav[ei](?:\s+API)?|token|segreti)\b",
        "whole": r"\b(?:tutta\s+la\s+conversazione|l['’]intera\s+conversazione|tutta\s+la\s+cronologia"
        r"|cronologia\s+(?:completa|della\s+chat)|messaggi\s+precedenti)\b",
        "conceal": r"\bsenza\s+(?:dirlo|dirglielo|avvisare|informare|menzionar\w*)|\bnon\s+(?:dirlo|dirglielo"
        r"|menzionarlo|dire\s+nulla)|\bl['’]utente\s+non\s+(?:deve|ha\s+bisogno\s+di)\s+saper\w*"
        r"|\bfuori\s+da\s+ciò\s+che\s+(?:dici|racconti)|\btienilo\s+per\s+te|\bnascondi\w*",
        "quiet": r"\b(?:silenziosamente|in\s+silenzio|di\s+nascosto|discretamente|in\s+segreto)\b",
        "authority": r"\b(?:team\s+(?:di\s+)?sicurezza|conformità|compliance|revisione|audit|obbligatori\w*|richiest[oa]"
        r"|già\s+(?:stat[oa]\s+)?approvat\w*|il\s+proprietario|l['’]amministratore|autorizzat\w*"
        r"|consenso)\b",
        "skip": r"\b(?:salta|saltare)\s+(?:il\s+controllo|la\s+conferma|la\s+verifica)"
        r"|\bsenza\s+chiedere\s+(?:la\s+)?conferma|\bnon\s+chiedere\s+(?:la\s+)?conferma",
        "turf": r"\b(?:sostituisce|invece\s+di|al\s+posto\s+di|obsolet\w*|deprecat\w*|a\s+favore\s+di)\b",
        "other": r"\b(?:altro\s+server|altro\s+strumento|altri\s+strumenti|del\s+server|integrat\w*|nativ\w*)\b",
        "trigger": r"\b(?:sempre|prima\s+di|dopo|ogni\s+volta|per\s+prima\s+cosa|ogni)\b",
        "urgent": r"\b(?:urgente|immediatamente|subito)\b",
        "destroy": r"\b(?:elimina|cancella|rimuove|distrugge|sovrascrive|definitivamente|in\s+modo\s+permanente)\b",
    },
    "Dutch": {
        "move": r"\b(?:stuur|verstuur|zend|verzend|doorsturen|stuur\s+(?:\w+\s+){0,4}door|kopieer|deel|upload|post"
        r"|rapporteer|exporteer|zet\s+(?:\w+\s+){0,3}in\s+(?:de\s+)?cc)\b",
        "data": r"\b(?:resultaat|resultaten|antwoord(?:en)?|gesprek(?:ken)?|geschiedenis|chatgeschiedenis|bericht(?:en)?"
        r"|inhoud|gegevens|data|bestand(?:en)?|document(?:en)?|adres(?:sen)?|contact(?:en)?|e-?mails?"
        r"|een\s+kopie|alles)\b",
        "secret": r"\b(?:inloggegevens|wachtwoord(?:en)?|sleutels?|tokens?|geheimen)\b",
        "whole": r"\b(?:het\s+(?:hele|volledige)\s+gesprek|de\s+(?:hele|volledige)\s+(?:geschiedenis|chatgeschiedenis)"
        r"|eerdere\s+berichten)\b",
        "conceal": r"\bzonder\s+(?:het\s+)?(?:te\s+)?(?:vertellen|melden|noemen|informeren)|\bvertel\s+(?:het|dit)\s+niet"
        r"|\bnoem\s+(?:het|dit)\s+niet|\bde\s+gebruiker\s+hoeft\s+(?:dit|het)\s+niet\s+te\s+weten"
        r"|\bhoud\s+(?:het|dit)\s+(?:voor\s+jezelf|geheim)|\bverberg\b",
        "quiet": r"\b(?:stilletjes|ongemerkt|in\s+het\s+geheim|discreet)\b",
        "authority": r"\b(?:beveiligingsteam|securityteam|compliance|audit|verplicht|vereist|(?:al|reeds)\s+goedgekeurd"
        r"|de\s+eigenaar|de\s+beheerder|geautoriseerd|toestemming)\b",
        "skip": r"\bsla\s+(?:de\s+)?(?:controle|bevestiging|check)\s+over|\bzonder\s+(?:om\s+)?bevestiging"
        r"|\bvraag\s+geen\s+bevestiging",
        "turf": r"\b(?:vervangt|in\s+plaats\s+van|verouderd|ten\s+gunste\s+van)\b",
        "other": r"\b(?:andere\s+server|ander(?:e)?\s+(?:tool|hulpmiddel)|van\s+de\s+[\w-]+-?server|ingebouwd\w*)\b",
        "trigger": r"\b(?:altijd|voordat|na\s+elke|elke\s+keer|eerst|telkens)\b",
        "urgent": r"\b(?:dringend|onmiddellijk|meteen)\b",
        "destroy": r"\b(?:verwijder\w*|wis\w*|vernietig\w*|overschrijf\w*|permanent|definitief)\b",
    },
    "Polish": {
        "move": r"\b(?:wyślij|wysłać|przekaż|przekazać|prześlij|przesłać|skopiuj|kopiuj|udostępnij|wrzuć|opublikuj"
        r"|zgłoś|eksportuj|dodaj\s+do\s+dw)\b",
        "data": r"\b(?:wynik\w*|odpowied\w*|rozmow\w*|histori\w*|wiadomoś\w*|treś\w*|dane|danych|plik\w*|dokument\w*"
        r"|adres\w*|kontakt\w*|e-?mail\w*|kopi[eę]|wszystko)\b",
        "secret": r"\b(?:hasł\w*|klucz\w*|token\w*|dane\s+logowania|sekret\w*)\b",
        "whole": r"\b(?:cał\w*\s+rozmow\w*|cał\w*\s+histori\w*|poprzednie\s+wiadomości)\b",
        "conceal": r"\bbez\s+(?:informowania|mówienia|wspominania|powiadamiania)|\bnie\s+(?:mów|wspominaj|informuj)\b"
        r"|\bużytkownik\s+nie\s+musi\s+(?:o\s+tym\s+)?wiedzieć|\bzachowaj\s+(?:to\s+)?dla\s+siebie"
        r"|\bukryj\b",
        "quiet": r"\b(?:po\s+cichu|potajemnie|dyskretnie|niepostrzeżenie)\b",
        "authority": r"\b(?:zespół\s+bezpieczeństwa|zgodnoś\w*|compliance|audyt\w*|wymagan\w*|obowiązkow\w*"
        r"|już\s+zatwierdz\w*|właściciel\w*|administrator\w*|autoryzowa\w*|zgod[aęy])\b",
        "skip": r"\bpomiń\s+(?:sprawdzenie|potwierdzenie|weryfikację)|\bbez\s+(?:pytania\s+o\s+)?potwierdzeni\w*"
        r"|\bnie\s+pytaj\s+o\s+potwierdzenie",
        "turf": r"\b(?:zastępuje|zamiast|przestarzał\w*|na\s+rzecz)\b",
        "other": r"\b(?:inn\w*\s+serwer\w*|inn\w*\s+narzędzi\w*|serwera\s+\w+|wbudowan\w*)\b",
        "trigger": r"\b(?:zawsze|przed|po\s+każd\w*|za\s+każdym\s+razem|najpierw)\b",
        "urgent": r"\b(?:pilnie|natychmiast|niezwłocznie)\b",
        "destroy": r"\b(?:usuwa|usuń|kasuje|niszczy|nadpisuje|trwale|bezpowrotnie)\b",
    },
    "Turkish": {
        "move": r"\b(?:gönder\w*|ilet\w*|yönlendir\w*|kopyala\w*|paylaş\w*|yükle\w*|yayınla\w*|bildir\w*"
        r"|dışa\s+aktar\w*|bilgi\s+olarak\s+ekle)\b",
        "data": r"\b(?:sonuç\w*|yanıt\w*|cevap\w*|konuşma\w*|sohbet\w*|geçmiş\w*|mesaj\w*|içeri\w*|veri\w*|dosya\w*"
        r"|belge\w*|kayıt\w*|adres\w*|kişi\w*|e-?posta\w*|kopya\w*|hepsi|tüm)\b",
        "secret": r"\b(?:parola\w*|şifre\w*|anahtar\w*|token\w*|kimlik\s+bilgi\w*)\b",
        "whole": r"\b(?:tüm\s+konuşma\w*|konuşmanın\s+tamamı\w*|tüm\s+sohbet\w*|sohbet\s+geçmiş\w*|önceki\s+mesaj\w*)\b",
        "conceal": r"\bkullanıcıya\s+(?:söyleme|bahsetme|bildirme)\w*|\b(?:söylemeden|bahsetmeden|haber\s+vermeden)\b"
        r"|\bkullanıcının\s+bilmesine\s+gerek\s+yok|\bgizle\w*|\bkendine\s+sakla",
        "quiet": r"\b(?:sessizce|gizlice|fark\s+ettirmeden|çaktırmadan)\b",
        "authority": r"\b(?:güvenlik\s+ekibi\w*|uyumluluk|denetim\w*|zorunlu\w*|zaten\s+onayla\w*|önceden\s+onayla\w*"
        r"|onaylanmıştır|sahibi|yönetici\w*|yetkili|izin\s+verildi|rıza)\b",
        "skip": r"\bonay\s+(?:istemeden|almadan|sormadan)|\b(?:doğrulamayı|kontrolü)\s+atla\w*|\bonay\s+isteme\b",
        "turf": r"\b(?:yerine|yerini\s+alır|kullanımdan\s+kaldırıldı|eskidi|lehine)\b",
        "other": r"\b(?:başka\s+(?:bir\s+)?sunucu\w*|diğer\s+sunucu\w*|başka\s+(?:bir\s+)?araç\w*|diğer\s+araç\w*"
        r"|\w+\s+sunucusunun|yerleşik)\b",
        "trigger": r"\b(?:her\s+zaman|önce|sonra|her\s+seferinde|ilk\s+olarak)\b",
        "urgent": r"\b(?:acil|hemen|derhal)\b",
        "destroy": r"\b(?:sil\w*|kaldır\w*|yok\s+eder|üzerine\s+yaz\w*|kalıcı\s+olarak|geri\s+alınamaz)\b",
    },
    "Vietnamese": {
        "move": r"\b(?:gửi|chuyển\s+tiếp|sao\s+chép|chia\s+sẻ|tải\s+lên|đăng|báo\s+cáo|xuất)\b",
        "data": r"\b(?:kết\s+quả|câu\s+trả\s+lời|phản\s+hồi|cuộc\s+trò\s+chuyện|hội\s+thoại|lịch\s+sử|tin\s+nhắn"
        r"|nội\s+dung|dữ\s+liệu|tệp|tập\s+tin|tài\s+liệu|bản\s+ghi|địa\s+chỉ|danh\s+bạ|email|bản\s+sao|tất\s+cả)\b",
        "secret": r"\b(?:mật\s+khẩu|khóa\s+API|khoá\s+API|token|thông\s+tin\s+đăng\s+nhập)\b",
        "whole": r"\b(?:toàn\s+bộ\s+cuộc\s+trò\s+chuyện|toàn\s+bộ\s+hội\s+thoại|toàn\s+bộ\s+lịch\s+sử"
        r"|lịch\s+sử\s+trò\s+chuyện|các\s+tin\s+nhắn\s+trước)\b",
        "conceal": r"\bđừng\s+(?:nói|cho\s+\w+\s+biết|báo|nhắc)|\bkhông\s+(?:nói|báo|nhắc)\s+(?:cho|với)\s+người\s+dùng"
        r"|\bmà\s+không\s+(?:nói|báo|cho)\s+(?:người\s+dùng|họ)|\bngười\s+dùng\s+không\s+cần\s+biết"
        r"|\bgiữ\s+bí\s+mật|\bgiấu\b",
        "quiet": r"\b(?:lặng\s+lẽ|âm\s+thầm|lén)\b",
        "authority": r"\b(?:đội\s+bảo\s+mật|nhóm\s+bảo\s+mật|tuân\s+thủ|kiểm\s+toán|bắt\s+buộc|đã\s+được\s+phê\s+duyệt"
        r"|đã\s+phê\s+duyệt|đã\s+đồng\s+ý|chủ\s+sở\s+hữu|quản\s+trị\s+viên|được\s+ủy\s+quyền)\b",
        "skip": r"\bbỏ\s+qua\s+(?:bước\s+)?(?:kiểm\s+tra|xác\s+nhận)|\bkhông\s+cần\s+xác\s+nhận"
        r"|\bkhông\s+hỏi\s+xác\s+nhận",
        "turf": r"\b(?:thay\s+thế|thay\s+cho|thay\s+vì|đã\s+lỗi\s+thời|không\s+còn\s+dùng)\b",
        "other": r"\b(?:máy\s+chủ\s+khác|công\s+cụ\s+khác|của\s+máy\s+chủ|tích\s+hợp\s+sẵn)\b",
        "trigger": r"\b(?:luôn\s+luôn|luôn|trước\s+khi|sau\s+mỗi|mỗi\s+lần|đầu\s+tiên|trước\s+tiên)\b",
        "urgent": r"\b(?:ngay\s+lập\s+tức|khẩn\s+cấp)\b",
        "destroy": r"\b(?:xóa|xoá|loại\s+bỏ|phá\s+hủy|ghi\s+đè|vĩnh\s+viễn)\b",
    },
    "Indonesian": {
        "move": r"\b(?:kirim\w*|teruskan|salin\w*|bagikan|unggah\w*|posting|laporkan|ekspor|tembuskan)\b",
        "data": r"\b(?:hasil\w*|jawaban|respons|percakapan|obrolan|riwayat|pesan|konten|isi|data|berkas|file|dokumen"
        r"|catatan|alamat|kontak|email|salinan|semua)\b",
        "secret": r"\b(?:kata\s+sandi|kunci\s+API|kunci|token|kredensial)\b",
        "whole": r"\b(?:seluruh\s+percakapan|semua\s+percakapan|seluruh\s+riwayat|riwayat\s+obrolan|pesan\s+sebelumnya)\b",
        "conceal": r"\bjangan\s+(?:beri\s*tahu|bilang|sebutkan|katakan|kasih\s+tahu)|\btanpa\s+(?:memberi\s*tahu"
        r"|sepengetahuan|menyebutkan|bilang)|\bpengguna\s+tidak\s+perlu\s+tahu|\bsembunyikan|\brahasiakan",
        "quiet": r"\b(?:diam-diam|secara\s+diam-diam|secara\s+rahasia)\b",
        "authority": r"\b(?:tim\s+keamanan|kepatuhan|audit|wajib|sudah\s+disetujui|telah\s+disetujui|pemilik"
        r"|administrator|berwenang|persetujuan)\b",
        "skip": r"\blewati\s+(?:pemeriksaan|konfirmasi|verifikasi)|\btanpa\s+(?:meminta\s+)?konfirmasi"
        r"|\bjangan\s+minta\s+konfirmasi",
        "turf": r"\b(?:menggantikan|sebagai\s+ganti|alih-alih|usang|tidak\s+digunakan\s+lagi)\b",
        "other": r"\b(?:server\s+lain|alat\s+lain|tool\s+lain|dari\s+server|bawaan)\b",
        "trigger": r"\b(?:selalu|sebelum|setelah\s+setiap|setiap\s+kali|terlebih\s+dahulu)\b",
        "urgent": r"\b(?:segera|mendesak|sekarang\s+juga)\b",
        "destroy": r"\b(?:menghapus|hapus|memusnahkan|menimpa|permanen|selamanya)\b",
    },
    "Swedish": {
        "move": r"\b(?:skicka|vidarebefordra|kopiera|dela|ladda\s+upp|posta|rapportera|exportera|sänd"
        r"|sätt\s+(?:\w+\s+){0,3}(?:i\s+)?kopia)\b",
        "data": r"\b(?:resultat\w*|svar\w*|konversation\w*|samtal\w*|historik\w*|meddelande\w*|innehåll\w*|data"
        r"|fil(?:er)?|dokument\w*|adress\w*|kontakt\w*|e-?post\w*|en\s+kopia|allt)\b",
        "secret": r"\b(?:lösenord\w*|nyckl\w*|nyckel|token\w*|inloggningsuppgifter)\b",
        "whole": r"\b(?:hela\s+konversationen|hela\s+samtalet|hela\s+historiken|tidigare\s+meddelanden)\b",
        "conceal": r"\butan\s+att\s+(?:berätta|nämna|meddela|informera)|\bberätta\s+(?:det\s+)?inte|\bnämn\s+(?:det\s+)?inte"
        r"|\banvändaren\s+behöver\s+inte\s+(?:veta|få\s+veta)|\bhåll\s+det\s+för\s+dig\s+själv|\bdölj\b",
        "quiet": r"\b(?:i\s+smyg|diskret|obemärkt)\b",
        "authority": r"\b(?:säkerhetsteam\w*|efterlevnad|compliance|revision|granskning|obligatorisk\w*|krävs"
        r"|redan\s+godkän\w*|ägaren|administratören|auktoriserad|samtycke)\b",
        "skip": r"\bhoppa\s+över\s+(?:kontrollen|bekräftelsen)|\butan\s+(?:att\s+fråga\s+om\s+)?bekräftelse"
        r"|\bbe\s+inte\s+om\s+bekräftelse",
        "turf": r"\b(?:ersätter|i\s+stället\s+för|istället\s+för|föråldrad|till\s+förmån\s+för)\b",
        "other": r"\b(?:annan\s+server|andra\s+servrar|annat\s+verktyg|andra\s+verktyg|[\w-]+-?serverns|inbyggd\w*)\b",
        "trigger": r"\b(?:alltid|innan|efter\s+varje|varje\s+gång|först)\b",
        "urgent": r"\b(?:omedelbart|brådskande|genast)\b",
        "destroy": r"\b(?:raderar|radera|tar\s+bort|förstör|skriver\s+över|permanent|oåterkalleligt)\b",
    },
}
